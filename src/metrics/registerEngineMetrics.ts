import { Counter, Gauge, type Registry } from "prom-client";
import { TIERS } from "../core/tiers.js";
import type { Snapshot } from "../core/types.js";
import { VERSION } from "../core/version.js";

import type { MetricsEngine } from "./options.js";
import { registerPromiseMetrics } from "./registerPromiseMetrics.js";

/**
 * The engine's metrics, every one computed when Prometheus scrapes (prom-client `collect`
 * callbacks reading `engine.counters()` and `engine.snapshot()`), so ingesting a block or
 * answering a request costs nothing more:
 *
 * - `gasdigest_blocks_total{outcome}`: blocks `accepted`, `rejected`, `duplicate`;
 * - `gasdigest_strategy_failures_total`, `gasdigest_resyncs_total`;
 * - `gasdigest_block_height`, `gasdigest_block_age_seconds` (since it arrived),
 *   `gasdigest_block_timestamp_seconds` (its chain time);
 * - `gasdigest_estimate_gas_unit_price{tier}`, `gasdigest_min_gas_unit_price`;
 * - for strategies with promises, `gasdigest_promise_*` ({@link registerPromiseMetrics});
 * - `gasdigest_info{version,strategy}`.
 *
 * @example
 * registerEngineMetrics(registry, "gasdigest_", engine, Date.now);
 */
export function registerEngineMetrics(
  registry: Registry,
  prefix: string,
  engine: MetricsEngine,
  now: () => number,
): void {
  const registers = [registry];
  const name = (n: string) => prefix + n;

  new Counter({
    name: name("blocks_total"),
    help: "Blocks given to the engine, by outcome: accepted, rejected (invalid, out of order: an older height or a lower epoch), duplicate (the newest height again).",
    labelNames: ["outcome"],
    registers,
    collect() {
      const c = engine.counters();
      this.reset();
      this.inc({ outcome: "accepted" }, c.accepted);
      this.inc({ outcome: "rejected" }, c.rejected);
      this.inc({ outcome: "duplicate" }, c.duplicate);
    },
  });
  new Counter({
    name: name("strategy_failures_total"),
    help: "Accepted blocks after which the strategy failed (the estimate is then served as 500 until the next block).",
    registers,
    collect() {
      this.reset();
      this.inc(engine.counters().strategyFailures);
    },
  });
  new Counter({
    name: name("resyncs_total"),
    help: "Times the engine dropped its newest block to follow a run of blocks in order after it (see resyncAfterBlocks).",
    registers,
    collect() {
      this.reset();
      this.inc(engine.counters().resyncs);
    },
  });

  // Gauges of the newest block: no sample before the first one.
  const newest = (suffix: string, help: string, read: (s: Snapshot) => number | undefined) =>
    new Gauge({
      name: name(suffix),
      help,
      registers,
      collect() {
        const s = engine.snapshot();
        const value = s === undefined ? undefined : read(s);
        // prom-client's reset() leaves an unlabelled gauge at 0: remove() drops the sample.
        if (value !== undefined) this.set(value);
        else this.remove();
      },
    });
  newest("block_height", "Height of the newest accepted block.", (s) =>
    Number(s.ledger.blockHeight),
  );
  newest(
    "block_age_seconds",
    "Seconds since the newest accepted block arrived (what --max-staleness-ms compares).",
    (s) => Math.max(0, now() - s.receivedAtMs) / 1000,
  );
  newest(
    "block_timestamp_seconds",
    "Chain timestamp of the newest accepted block, in seconds since the Unix epoch (absent when blocks carry none).",
    (s) => (s.ledger.timestampUsec === 0n ? undefined : Number(s.ledger.timestampUsec) / 1e6),
  );
  newest(
    "min_gas_unit_price",
    "Minimum gas unit price in force (the newest block's, else the configured one), in the chain's price unit (octas on Aptos).",
    (s) => Number(s.minGasUnitPrice),
  );

  new Gauge({
    name: name("estimate_gas_unit_price"),
    help: "The estimate served for each tier (deprioritized, regular, prioritized), in the chain's price unit per gas unit (octas on Aptos); absent while the strategy fails.",
    labelNames: ["tier"],
    registers,
    collect() {
      this.reset();
      const e = engine.snapshot()?.estimate;
      if (e !== undefined) for (const tier of TIERS) this.set({ tier }, Number(e[tier]));
    },
  });

  registerPromiseMetrics(registers, name, () => engine.snapshot()?.promises);

  new Gauge({
    name: name("info"),
    help: "Always 1: the gasdigest version and the strategy served.",
    labelNames: ["version", "strategy"],
    registers,
    collect() {
      this.reset();
      this.set({ version: VERSION, strategy: engine.strategyName }, 1);
    },
  });
}
