#!/usr/bin/env node
// Launcher: runs the built CLI. `npm install` builds it through the `prepare` script.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write(
    "gasdigest: the build output is missing (dist/cli/main.js); run `npm run build` first\n",
  );
  process.exit(1);
}
// A reader that goes away (`gasdigest replay ... | head -1`, a log shipper that dies under
// `gasdigest serve`) makes stdout fail with EPIPE. replay and simulate see it on their next write
// and stop with exit code 141; serve and publish keep serving without their log. Without this
// listener the error would be thrown from the stream and kill the process, a server included.
process.stdout.on("error", (error) => {
  if (error.code !== "EPIPE") throw error;
});
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
