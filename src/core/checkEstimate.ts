import { describeValue, thrownText } from "./describeValue.js";
import { StrategyError } from "./errors.js";
import { isPromiseResult, PROMISE_RESULT_DETAILS } from "./promiseResult.js";
import { TIERS } from "./tiers.js";
import type { GasEstimate, Strategy } from "./types.js";
import { U64_MAX } from "./u64.js";

/**
 * Ask a strategy for its estimate and check it: everything that touches the strategy's answer
 * (the call, its property reads) happens inside the guard, so a strategy that throws, returns
 * a value with a throwing getter, or breaks the invariants
 * (`min <= deprioritized <= regular <= prioritized <= 2^64-1`, all BigInt) gives a
 * {@link StrategyError} and never escapes.
 *
 * @example
 * const r = checkEstimate(strategy, "aip34", 100n);
 * if (r.failure) console.error(r.failure.shortMessage);
 */
export function checkEstimate(
  strategy: Strategy,
  name: string,
  min: bigint,
):
  | { estimate: GasEstimate; failure?: undefined }
  | { estimate?: undefined; failure: StrategyError } {
  let low: unknown;
  let regular: unknown;
  let high: unknown;
  try {
    const e: unknown = strategy.estimate(min);
    if (isPromiseResult(e))
      return {
        failure: new StrategyError(`strategy ${name} failed to estimate`, {
          details: PROMISE_RESULT_DETAILS,
        }),
      };
    if (typeof e === "object" && e !== null) {
      const o = e as Partial<GasEstimate>;
      low = o.deprioritized;
      regular = o.regular;
      high = o.prioritized;
    }
  } catch (cause) {
    return {
      failure: new StrategyError(`strategy ${name} failed to estimate`, {
        cause,
        details: thrownText(cause),
      }),
    };
  }
  if (
    typeof low === "bigint" &&
    typeof regular === "bigint" &&
    typeof high === "bigint" &&
    low >= min &&
    low <= regular &&
    regular <= high &&
    high <= U64_MAX
  )
    return { estimate: Object.freeze({ deprioritized: low, regular, prioritized: high }) };
  // What is wrong comes first: the CLI cuts a failure to one line of 200 characters, and the
  // tiers of an estimate of plain numbers read as a good one.
  return {
    failure: new StrategyError(`strategy ${name} returned an estimate that breaks the invariants`, {
      details: `got ${describeValue(low)}/${describeValue(regular)}/${describeValue(high)} (${brokenRule([low, regular, high], min)}); expected min (${min}) <= deprioritized <= regular <= prioritized <= 2^64-1 as BigInt`,
    }),
  };
}

/**
 * The first rule the tiers break: which are not BigInts (a number prints like one), else the
 * first comparison that fails (`"regular is above prioritized"`).
 */
function brokenRule(values: readonly unknown[], min: bigint): string {
  const wrong = values.flatMap((v, i) =>
    typeof v === "bigint" ? [] : [`${TIERS[i]} is ${v === null ? "null" : typeof v}`],
  );
  if (wrong.length > 0) return `${wrong.join(", ")}, not a BigInt`;
  const [low, regular, high] = values as bigint[];
  if (low! < min) return "deprioritized is below the minimum";
  if (low! > regular!) return "deprioritized is above regular";
  if (regular! > high!) return "regular is above prioritized";
  return "prioritized is above 2^64-1";
}
