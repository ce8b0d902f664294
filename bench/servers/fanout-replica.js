// Child process for bench/suites/fanout.js: one serving replica (engine + node:http server of
// the built package on 127.0.0.1), fed either from a Redis Stream (`redis URL`) or from an
// in-process push source fed with NDJSON block lines read on stdin (`push`). It prints one JSON
// line when it listens ({ port }), then one line per new snapshot: { h: height, t: wall ms }.
// It exits when stdin closes.
import { createInterface } from "node:readline";
import { createServer, listen } from "../../dist/adapters/node/index.js";
import { createEngine } from "../../dist/core/createEngine.js";
import { redisStream } from "../../dist/redis.js";
import { pushSource } from "../../dist/sources/pushSource.js";
import { aip34 } from "../../dist/strategies/aip34.js";
import { wallMs } from "../lib-redis.js";

const [mode, url] = process.argv.slice(2);
const engine = createEngine({ strategy: aip34() });
const server = createServer(engine, { maxStalenessMs: false });
const push = pushSource();
engine.connect(mode === "redis" ? redisStream(url, { warmStartBlocks: 1 }) : push.source$);
engine.snapshots$.subscribe((s) => {
  process.stdout.write(`{"h":${s.ledger.blockHeight},"t":${wallMs()}}\n`);
});
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (mode === "push") push.push(JSON.parse(line));
});
lines.on("close", () => {
  engine.close();
  server.close();
  process.exit(0);
});
const address = await listen(server, { port: 0 });
process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
