import * as z from "zod";
import type { GasConfig } from "../core/config.js";
import { describeValue } from "../core/describeValue.js";
import { InvalidConfigError } from "../core/errors.js";
import { describeNumber } from "../core/optionSchemas.js";
import type { Tier } from "../core/tiers.js";
import { validateShape } from "../core/validate.js";

// A bad value is echoed in at most 80 characters, whatever its size.

/** A number field with a range; every message says what it got. */
function ranged(what: string, min: number, max: number, int: boolean) {
  const message = (iss: { input?: unknown }) =>
    `must be ${what} from ${min} to ${max}, got ${describeNumber(iss.input)}`;
  const base = int ? z.int({ error: message }) : z.number({ error: message });
  return base.min(min, { error: message }).max(max, { error: message });
}
const bool = z.boolean({
  error: (iss) => `must be true or false, got ${describeValue(iss.input)}`,
});
/** A message for a value that is not an object where one is expected (other issues keep zod's). */
const objectOf = (what: string) => (iss: { code?: string; input?: unknown }) =>
  iss.code === "invalid_type"
    ? `must be an object of ${what}, got ${describeValue(iss.input)}`
    : undefined;

function tierShape(quantile: number) {
  return z
    .strictObject(
      {
        /** Blocks in this tier's window. @default the AIP-34 history of the tier (config) */
        windowBlocks: ranged("a whole number of blocks", 1, 2 ** 40, true).optional(),
        /** Quantile of the window's samples, from 0 (minimum) to 1 (maximum). */
        quantile: ranged("a number", 0, 1, false).default(quantile),
        /** `clearing`: one minimum inclusion price per block; `paid`: every price of a full block. @default "clearing" */
        sample: z
          .enum(["clearing", "paid"], {
            error: (iss) => `must be "clearing" or "paid", got ${describeValue(iss.input)}`,
          })
          .default("clearing"),
      },
      { error: objectOf("windowBlocks, quantile and sample") },
    )
    .prefault({});
}

/**
 * zod shape of the `tdigest` strategy's options (the config file's `tdigest` block). Every field
 * has a default; the defaults mirror AIP-34.
 */
export const tdigestOptionsShape = {
  /**
   * The three estimates, each the `quantile` of a window of `windowBlocks` blocks.
   * @default deprioritized {lowBlockHistory, 0, clearing}, regular {marketBlockHistory, 0.5, clearing},
   * prioritized {aggressiveBlockHistory, 0.9, clearing}
   */
  tiers: z
    .strictObject(
      {
        deprioritized: tierShape(0),
        regular: tierShape(0.5),
        prioritized: tierShape(0.9),
      },
      { error: objectOf("tiers (deprioritized, regular, prioritized)") },
    )
    .prefault({}),
  /** Weight each `paid` sample by the transaction's `gas_used`. @default false */
  weightByGasUsed: bool.default(false),
  /** Round the prioritized estimate up to the next price bucket, as AIP-34 does. @default true */
  roundPrioritizedToBucket: bool.default(true),
  /** t-digest compression δ of every window: memory and accuracy grow with it. @default 500 */
  compression: ranged("a number", 10, 100_000, false).default(500),
  /** Chunks a window longer than `exactUpTo` blocks is cut into. @default 32 */
  chunks: ranged("a whole number", 1, 65_536, true).default(32),
  /** Windows of at most this many blocks are exact in time (one summary per block). @default 1024 */
  exactUpTo: ranged("a whole number of blocks", 0, 1_000_000, true).default(1024),
};

/** Options of the `tdigest` strategy as written by a user (every field optional). */
export type TDigestStrategyOptions = z.input<z.ZodObject<typeof tdigestOptionsShape>>;
/** Options of the `tdigest` strategy with the defaults filled in. */
export type TDigestStrategyConfig = z.output<z.ZodObject<typeof tdigestOptionsShape>>;

/**
 * Validate the `tdigest` strategy's options and fill in the defaults.
 *
 * @param prefix path prepended to every issue, e.g. `["tdigest"]` for a config file block.
 * @throws {InvalidConfigError} listing every problem with its path, e.g. `tiers.deprioritized.quantile`.
 * @example
 * parseTDigestOptions({ tiers: { regular: { quantile: 0.6, sample: "paid" } } });
 */
export function parseTDigestOptions(
  input: unknown = {},
  prefix: readonly PropertyKey[] = [],
): TDigestStrategyConfig {
  const r = validateShape(tdigestOptionsShape, input ?? {}, () => [], prefix);
  if (!r.ok) throw new InvalidConfigError(r.issues);
  return r.value as TDigestStrategyConfig;
}

/**
 * Blocks in each `tdigest` tier's window: its `windowBlocks`, or AIP-34's history of that tier
 * (`lowBlockHistory`, `marketBlockHistory`, `aggressiveBlockHistory`).
 *
 * @example
 * tdigestWindows(parseTDigestOptions({}), DEFAULT_GAS_CONFIG); // { deprioritized: 10, regular: 30, prioritized: 120 }
 */
export function tdigestWindows(
  options: TDigestStrategyConfig,
  config: Pick<GasConfig, "lowBlockHistory" | "marketBlockHistory" | "aggressiveBlockHistory">,
): Record<Tier, number> {
  return {
    deprioritized: options.tiers.deprioritized.windowBlocks ?? config.lowBlockHistory,
    regular: options.tiers.regular.windowBlocks ?? config.marketBlockHistory,
    prioritized: options.tiers.prioritized.windowBlocks ?? config.aggressiveBlockHistory,
  };
}
