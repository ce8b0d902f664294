import type { BlockSampleInput } from "../../src/core/blockSample.js";

/** A wire-shape block with sensible defaults; heights/versions derive from `height`. */
export function block(
  height: number | bigint,
  over: Partial<BlockSampleInput> = {},
): BlockSampleInput {
  const h = BigInt(height);
  return {
    height: h.toString(),
    epoch: "1",
    timestamp_usec: (1_700_000_000_000_000n + h * 250_000n).toString(),
    first_version: (h * 1000n).toString(),
    last_version: (h * 1000n + 999n).toString(),
    chain_id: 4,
    gas_unit_prices: [],
    ...over,
  };
}

/**
 * `b` moved to `height`: its versions and timestamp derived from the new height as {@link block}
 * derives them (the engine refuses versions or a timestamp going back from block to block).
 */
export function atHeight(b: BlockSampleInput, height: number | bigint): BlockSampleInput {
  const { height: h, timestamp_usec, first_version, last_version } = block(height);
  return { ...b, height: h, timestamp_usec, first_version, last_version };
}

/** A block with `n` user transactions all at `price` (n >= 250 makes it full by count). */
export function fullBlock(
  height: number,
  price: number | string = 100,
  n = 250,
  over: Partial<BlockSampleInput> = {},
) {
  return block(height, {
    gas_unit_prices: Array.from({ length: n }, () => String(price)),
    ...over,
  });
}

/** A block with a few transactions: not full by any rule. */
export function idleBlock(height: number, over: Partial<BlockSampleInput> = {}) {
  return block(height, { gas_unit_prices: ["100", "120"], ...over });
}
