// Deno: serve the app on 127.0.0.1, port 0; print the port as JSON on stdout.
import { createApp } from "./app.mjs";

Deno.serve(
  {
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) =>
      console.log(JSON.stringify({ runtime: `deno ${Deno.version.deno}`, port })),
  },
  createApp(),
);
