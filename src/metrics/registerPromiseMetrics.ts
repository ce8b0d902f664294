import { Counter, Gauge, type Registry } from "prom-client";
import { TIERS, type Tier } from "../core/tiers.js";
import type { PromiseRecord } from "../core/types.js";

/**
 * Recent outcomes above the minimum price below which `promise_inclusion_ratio_above_minimum`
 * has no `recent` sample: with fewer, one or two misses would move it by 5 points.
 */
export const RECENT_ABOVE_MINIMUM_LEAST = 100;

const HELP = "Strategies with promises (calibrated)";

/**
 * The promise metrics of a strategy that makes promises (`calibrated`), read from the snapshot's
 * records when Prometheus scrapes:
 *
 * - `gasdigest_promise_probability{tier}`, `gasdigest_promise_within_blocks{tier}`;
 * - `gasdigest_promise_bids_total{tier}`, `gasdigest_promise_included_total{tier}`,
 *   `gasdigest_promise_included_at_minimum_total{tier}` (the last one where the record has it);
 * - `gasdigest_promise_inclusion_ratio{tier,window}` (`all`, `recent`) and
 *   `gasdigest_promise_inclusion_ratio_above_minimum{tier,window}`: the same share leaving out
 *   the bids at the minimum price that got in (where the price was a choice), `recent` only
 *   with at least {@link RECENT_ABOVE_MINIMUM_LEAST} such outcomes.
 *
 * Every series is absent while there is no record (no promises, `staticOverride`, disabled).
 *
 * @example
 * registerPromiseMetrics([registry], (n) => `gasdigest_${n}`, () => engine.snapshot()?.promises);
 */
export function registerPromiseMetrics(
  registers: Registry[],
  name: (suffix: string) => string,
  promises: () => Readonly<Record<Tier, PromiseRecord>> | undefined,
): void {
  // A value of each tier's record: a gauge, or a counter (set to the engine's total); a tier
  // whose record has no such value has no sample.
  const perTier = (
    kind: "gauge" | "counter",
    suffix: string,
    help: string,
    read: (p: PromiseRecord) => number | undefined,
  ) => {
    const config = { name: name(suffix), help, labelNames: ["tier"] as const, registers };
    const each = (write: (tier: Tier, value: number) => void) => {
      const p = promises();
      if (p === undefined) return;
      for (const tier of TIERS) {
        const value = read(p[tier]);
        if (value !== undefined) write(tier, value);
      }
    };
    if (kind === "gauge")
      new Gauge({
        ...config,
        collect() {
          this.reset();
          each((tier, value) => this.set({ tier }, value));
        },
      });
    else
      new Counter({
        ...config,
        collect() {
          this.reset();
          each((tier, value) => this.inc({ tier }, value));
        },
      });
  };
  perTier(
    "gauge",
    "promise_probability",
    `${HELP}: the share of bids at the tier's estimate promised to get in within promise_within_blocks blocks.`,
    (p) => p.probability,
  );
  perTier(
    "gauge",
    "promise_within_blocks",
    `${HELP}: the blocks a bid at the tier's estimate may wait.`,
    (p) => p.withinBlocks,
  );
  perTier(
    "counter",
    "promise_bids_total",
    `${HELP}: bids at the tier's estimate whose outcome is known (since start, the blocks a warm start read back included; bids still waiting at an epoch change are dropped, not counted).`,
    (p) => p.bids,
  );
  perTier(
    "counter",
    "promise_included_total",
    `${HELP}: of those bids, the ones that got in within promise_within_blocks blocks.`,
    (p) => p.included,
  );
  perTier(
    "counter",
    "promise_included_at_minimum_total",
    `${HELP}: of the included bids, the ones at the minimum price in force (inclusion that cost nothing).`,
    (p) => p.includedAtMinimum,
  );
  const ratio = (suffix: string, help: string, read: typeof allBids) =>
    new Gauge({
      name: name(suffix),
      help,
      labelNames: ["tier", "window"],
      registers,
      collect() {
        this.reset();
        const p = promises();
        if (p === undefined) return;
        for (const tier of TIERS) {
          const { all, recent } = read(p[tier]);
          if (all !== null) this.set({ tier, window: "all" }, all);
          if (recent !== null) this.set({ tier, window: "recent" }, recent);
        }
      },
    });
  ratio(
    "promise_inclusion_ratio",
    `${HELP}: observed share of the tier's bids that got in within promise_within_blocks blocks; window="all" since start (the blocks a warm start read back included), "recent" over the latest outcomes (at most 1000). Absent before the first outcome.`,
    allBids,
  );
  ratio(
    "promise_inclusion_ratio_above_minimum",
    `${HELP}: the same share leaving out the bids at the minimum price that got in, where the price was a choice; "recent" absent with fewer than ${RECENT_ABOVE_MINIMUM_LEAST} such recent outcomes.`,
    aboveMinimum,
  );
}

function allBids(p: PromiseRecord) {
  return { all: p.rate, recent: p.recentRate };
}

/** The rates leaving out the bids at the minimum that got in (none without those counts). */
function aboveMinimum(p: PromiseRecord) {
  const share = (bids: number, included: number, free: number | undefined, least: number) =>
    free === undefined || bids - free < least ? null : (included - free) / (bids - free);
  // The recent included count, back from its rate (exact: both come from whole counts).
  const recentIncluded = p.recentRate === null ? 0 : Math.round(p.recentRate * p.recentBids);
  return {
    all: share(p.bids, p.included, p.includedAtMinimum, 1),
    recent: share(
      p.recentBids,
      recentIncluded,
      p.recentIncludedAtMinimum,
      RECENT_ABOVE_MINIMUM_LEAST,
    ),
  };
}
