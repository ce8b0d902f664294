import type { EpochPrices } from "./createEpochPrices.js";
import type { ResolvedAptosRestOptions } from "./options.js";

/** The minimum gas unit price the `aptosRest` source puts on each block it emits. */
export interface EpochMinimum {
  /** The epoch of the last block given a minimum (`undefined` before the first). */
  readonly epoch: bigint | undefined;
  /**
   * The minimum of the block at `height` (of `epoch`, first version `version`), given in height
   * order. The first block of a new epoch waits for that epoch's gas schedule read, or until it
   * is given up (then the previous minimum goes on, and the read is probed now and then). Reads
   * of epochs other than this one and those `ahead` gives once the read is done (the epochs of
   * the blocks fetched ahead by then) are dropped.
   */
  forBlock(
    epoch: bigint,
    height: bigint,
    version: bigint,
    ahead: () => Iterable<bigint>,
  ): Promise<bigint | undefined>;
}

type MinimumOptions = Pick<
  ResolvedAptosRestOptions,
  "onEvent" | "unreachableAfter" | "timeoutMs" | "maxBackoffMs"
>;

/**
 * Tracks the epoch and minimum gas unit price of the blocks the follow loop emits, and tells
 * each change (`min_gas_unit_price`) and each read given up (`min_gas_unit_price_pending`).
 *
 * @example
 * const minimum = createEpochMinimum(prices, options);
 * const min = await minimum.forBlock(block.epoch, block.height, block.firstVersion, () => []);
 */
export function createEpochMinimum(prices: EpochPrices, options: MinimumOptions): EpochMinimum {
  const { onEvent } = options;
  let epoch: bigint | undefined;
  let minPrice: bigint | undefined;
  // The read of the current epoch's gas schedule, given up before it answered: its blocks go
  // on with the previous minimum (a node that refuses or stalls that one read, a gateway that
  // only lets blocks through, held every block before), and it is probed now and then.
  let pending: { epoch: bigint; version: bigint } | undefined;
  const setMinPrice = (of: bigint, height: bigint, value: bigint | undefined) => {
    onEvent({ type: "min_gas_unit_price", epoch: of, height, value, previous: minPrice });
    minPrice = value;
  };
  return {
    get epoch() {
      return epoch;
    },
    async forBlock(of, height, version, ahead) {
      if (of !== epoch) {
        const found = await prices.readOrGiveUp(
          of,
          version,
          options.unreachableAfter,
          options.timeoutMs,
        );
        // Keep the reads of this epoch and of the epochs fetched ahead, nothing else: epochs
        // that go down block after block must not pile up reads.
        prices.retain(new Set([of, ...ahead()]));
        epoch = of;
        pending = undefined;
        if ("value" in found) setMinPrice(of, height, found.value);
        else {
          pending = { epoch: of, version };
          onEvent({
            type: "min_gas_unit_price_pending",
            epoch: of,
            height,
            failures: found.failures,
            using: minPrice,
          });
        }
      } else if (pending) {
        // Asked once per maxBackoffMs at most, a single attempt outside the outage count.
        prices.probe(pending.epoch, pending.version, options.maxBackoffMs);
        const answer = prices.answered(pending.epoch, pending.version);
        if (answer) {
          pending = undefined;
          setMinPrice(of, height, answer.value);
        }
      }
      return minPrice;
    },
  };
}
