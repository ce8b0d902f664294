// Bun: serve the app on 127.0.0.1, port 0; print the port as JSON on stdout.
import { createApp } from "./app.mjs";

const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: createApp() });
console.log(JSON.stringify({ runtime: `bun ${Bun.version}`, port: server.port }));
