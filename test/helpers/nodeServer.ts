import { afterEach } from "vitest";
import {
  createServer,
  type GasdigestServer,
  listen,
  type NodeServerOptions,
} from "../../src/adapters/node/index.js";
import { createEngine } from "../../src/core/createEngine.js";
import { aip34 } from "../../src/strategies/aip34.js";
import { block } from "./blocks.js";

const started: GasdigestServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.shutdown()));
});

/**
 * A gasdigest node server on a free loopback port, serving an aip34 engine that has seen block 1
 * and never goes stale (`closeTimeout` 2 s unless told); shut down after the test.
 *
 * @example
 * const { port } = await startNodeServer({ maxConnections: 11 });
 */
export async function startNodeServer(
  options: NodeServerOptions = {},
): Promise<{ server: GasdigestServer; port: number }> {
  const engine = createEngine({ strategy: aip34() });
  engine.ingest(block(1));
  const server = createServer(engine, { maxStalenessMs: false, closeTimeout: 2000, ...options });
  started.push(server);
  const { port } = await listen(server, { port: 0 });
  return { server, port };
}
