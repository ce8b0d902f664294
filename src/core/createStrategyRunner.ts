import type { BlockSample } from "./blockSample.js";
import { checkEstimate } from "./checkEstimate.js";
import { checkPromises } from "./checkPromises.js";
import type { GasConfig } from "./config.js";
import { shorten, thrownText } from "./describeValue.js";
import { StrategyError } from "./errors.js";
import { defaultEstimate } from "./estimate.js";
import { isPromiseResult, PROMISE_RESULT_DETAILS } from "./promiseResult.js";
import type { Tier } from "./tiers.js";
import type { GasEstimate, PromiseRecord, Strategy } from "./types.js";

/** What the strategy gave after a block: an estimate that keeps the invariants, or why not. */
export interface StrategyOutcome {
  readonly estimate: GasEstimate | undefined;
  readonly failure: StrategyError | undefined;
  readonly promises: Readonly<Record<Tier, PromiseRecord>> | undefined;
}

/** The engine's strategy, each call guarded: a throw or a bad estimate becomes a `StrategyError`. */
export interface StrategyRunner {
  /** Forget the windows: the strategy is reset before the next block it is fed. */
  resetBeforeNext(): void;
  /**
   * Reset the strategy when a reset is pending, then feed it `block` (none: only the reset).
   * A reset that failed is tried again before every block, so blocks of an older epoch never
   * mix with the new one. Returns the failure of the reset or of the ingest, if any.
   */
  feed(block: BlockSample | undefined): StrategyError | undefined;
  /**
   * The estimate served at minimum price `min` (checked by `checkEstimate`, or the config's
   * default or static one), and the promises when the strategy makes them. `failure`, from
   * `feed`, is carried as it is.
   */
  outcome(min: bigint, failure: StrategyError | undefined): StrategyOutcome;
}

/**
 * Wrap the engine's strategy so that its failures are values, never throws.
 *
 * @example
 * const runner = createStrategyRunner(strategy, config);
 * const failure = runner.feed(block);
 * const { estimate } = runner.outcome(100n, failure);
 */
export function createStrategyRunner(strategy: Strategy, config: GasConfig): StrategyRunner {
  // As its failures name it: at most 60 characters, so a long self-given name never pushes the
  // reason out of a message cut to a line (the backtest's failure line, a log).
  const name = shorten(String(strategy.name), 60);
  let resetPending = false;

  const failed = (what: string, cause: unknown) =>
    new StrategyError(`strategy ${name} failed to ${what}`, {
      cause,
      details: thrownText(cause),
    });
  const async = (what: string) =>
    new StrategyError(`strategy ${name} failed to ${what}`, { details: PROMISE_RESULT_DETAILS });

  function estimate(min: bigint): { estimate?: GasEstimate; failure?: StrategyError } {
    // Frozen, as every estimate a snapshot carries: what each request is answered with.
    if (!config.enabled) return { estimate: Object.freeze(defaultEstimate(min, config.buckets)) };
    if (config.staticOverride) return { estimate: atLeast(config.staticOverride, min) };
    return checkEstimate(strategy, name, min);
  }

  return {
    resetBeforeNext() {
      resetPending = true;
    },
    feed(block) {
      if (resetPending) {
        try {
          if (isPromiseResult(strategy.reset())) return async("reset");
          resetPending = false;
        } catch (cause) {
          return failed("reset", cause);
        }
      }
      if (!block) return undefined;
      try {
        if (isPromiseResult(strategy.ingest(block))) return async(`ingest block ${block.height}`);
      } catch (cause) {
        return failed(`ingest block ${block.height}`, cause);
      }
      return undefined;
    },
    outcome(min, failure) {
      if (failure) {
        // With `staticOverride` or `enabled: false` the strategy's estimate is not what is
        // served: a failure to reset or ingest is reported, and the estimate still served.
        const served =
          !config.enabled || config.staticOverride ? estimate(min).estimate : undefined;
        return { estimate: served, failure, promises: undefined };
      }
      const r = estimate(min);
      if (r.failure) return { estimate: r.estimate, failure: r.failure, promises: undefined };
      // With `staticOverride` or `enabled: false` the strategy's estimate is not what is served:
      // its record would score prices no client saw.
      if (!config.enabled || config.staticOverride)
        return { estimate: r.estimate, failure: undefined, promises: undefined };
      // A strategy that makes promises reports them once per block; one that throws there (or
      // whose records are not sane, see checkPromises) fails like any other strategy method (the
      // block is kept, the snapshot carries the failure): a bad record must not reach the
      // metrics (one made every scrape fail) or the backtest's tables.
      try {
        if (!strategy.promises)
          return { estimate: r.estimate, failure: undefined, promises: undefined };
        const promises = strategy.promises();
        if (isPromiseResult(promises))
          return {
            estimate: undefined,
            failure: async("report its promises"),
            promises: undefined,
          };
        const checked = checkPromises(promises);
        if (!checked.ok)
          return {
            estimate: undefined,
            failure: new StrategyError(`strategy ${name} failed to report its promises`, {
              details: checked.problem,
            }),
            promises: undefined,
          };
        return { estimate: r.estimate, failure: undefined, promises: checked.promises };
      } catch (cause) {
        return {
          estimate: undefined,
          failure: failed("report its promises", cause),
          promises: undefined,
        };
      }
    },
  };
}

/**
 * The static override served at minimum price `min`: a tier below the minimum in force (a
 * block's `min_gas_unit_price` rose above the configured override) is served at the minimum,
 * as every estimate is; the order of the tiers is kept.
 */
function atLeast(o: GasEstimate, min: bigint): GasEstimate {
  if (o.deprioritized >= min) return o;
  const up = (p: bigint) => (p < min ? min : p);
  return Object.freeze({
    deprioritized: min,
    regular: up(o.regular),
    prioritized: up(o.prioritized),
  });
}
