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
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
