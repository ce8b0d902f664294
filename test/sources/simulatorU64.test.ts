import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { InvalidConfigError } from "../../src/core/errors.js";
import { U64_MAX } from "../../src/core/u64.js";
import { generateBlocks } from "../../src/sources/simulator/simulateBlocks.js";
import { blockLimit, ENDLESS_ROOM_BLOCKS } from "../../src/sources/simulator/u64Room.js";
import {
  parseSimulatorOptions,
  type SimulatorOptions,
  simulateBlocks,
  simulator,
} from "../../src/sources/simulator.js";

/** The issues `simulateBlocks()` throws at the call (none: `[]`), as `path: message`. */
function issues(options: SimulatorOptions): string[] {
  try {
    simulateBlocks(options);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidConfigError);
    return (e as InvalidConfigError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  return [];
}

const U = U64_MAX;
const PER_BLOCK = "up to 252 a block: blockCapacity 250 plus the block metadata and epilogue";
const ENDLESS = `(blocks is unset: an endless run must have room for ${ENDLESS_ROOM_BLOCKS} blocks; set blocks to run fewer)`;

describe("simulator: every generated field stays within u64, checked at the call", () => {
  it("the audit's cases are refused naming the option, not a field of a block", () => {
    expect(issues({ startHeight: U, blocks: 3 })).toEqual([
      `startHeight: must be at most ${U - 2n} for the heights of 3 blocks to stay within 2^64-1, got ${U}`,
      `startHeight: must be at most 9223372036854775430 for the versions of 3 blocks to stay within 2^64-1 (${PER_BLOCK}; startVersion is unset, so 2 × startHeight), got ${U}`,
    ]);
    expect(issues({ startHeight: 2n ** 63n - 1n, blocks: 3 })).toEqual([
      `startHeight: must be at most 9223372036854775430 for the versions of 3 blocks to stay within 2^64-1 (${PER_BLOCK}; startVersion is unset, so 2 × startHeight), got ${2n ** 63n - 1n}`,
    ]);
    expect(issues({ startTimeUsec: U, blocks: 3 })).toEqual([
      `startTimeUsec: must be at most ${U - 500_000n} for the timestamps of 3 blocks to stay within 2^64-1 (250000 µs apart), got ${U}`,
    ]);
    // simulator() takes the same options: refused at the call, not a source_error later.
    expect(() => simulator({ startHeight: U, intervalMs: 0, blocks: 3 })).toThrow(
      InvalidConfigError,
    );
  });

  it("a count beyond 2^53 - 1 says its bound, not that it is not a whole number", () => {
    expect(issues({ blocks: 2 ** 53, epochLength: 2 ** 53 })).toEqual([
      "blocks: must be at most 9007199254740991",
      "epochLength: must be at most 9007199254740991",
    ]);
  });

  it("names blocks when the start is the default or no start fits", () => {
    expect(issues({ blocks: 2 ** 53 - 1 })).toEqual([
      `blocks: must be at most 73780176294839 for the timestamps to stay within 2^64-1 from startTimeUsec 1700000000000000 (250000 µs apart), got ${2 ** 53 - 1}`,
    ]);
    expect(issues({ blocks: 2 ** 53 - 1, startTimeUsec: 0, blockCapacity: 100_000 })).toEqual([
      `blocks: must be at most ${(U + 1n - 2n) / 100_002n} for the versions to stay within 2^64-1 from startVersion 2 (up to 100002 a block: blockCapacity 100000 plus the block metadata and epilogue), got 9007199254740991`,
      "blocks: must be at most 73786976294839 for the timestamps to stay within 2^64-1 from startTimeUsec 0 (250000 µs apart), got 9007199254740991",
    ]);
    // The wall clock stamps blocks itself: startTimeUsec does not matter.
    expect(issues({ startTimeUsec: U, blocks: 3, clock: "wall" })).toEqual([]);
  });

  it("with epochLength 1 the epoch is height + 1, so the last height is 2^64-2", () => {
    const o = { startVersion: 0, blocks: 1, epochLength: 1 };
    expect(issues({ ...o, startHeight: U })).toEqual([
      `startHeight: must be at most ${U - 1n} for the heights and epochs of 1 block to stay within 2^64-1 (epochLength 1), got ${U}`,
    ]);
    const [block] = [...simulateBlocks({ ...o, startHeight: U - 1n })];
    expect([block!.height, block!.epoch]).toEqual([U - 1n, U]);
    expect(issues({ ...o, startHeight: U, epochLength: 2 })).toEqual([]);
    // From a given startEpoch the epoch no longer follows the height: 2^64-1 is a height again.
    const [last] = [...simulateBlocks({ ...o, startHeight: U, startEpoch: 5 })];
    expect([last!.height, last!.epoch]).toEqual([U, 5n]);
  });

  it("from a given startEpoch, the epoch goes up at each multiple of epochLength and stays within u64", () => {
    const epochs = (o: SimulatorOptions) => [...simulateBlocks(o)].map((b) => b.epoch);
    // Mid-epoch: the next one starts at height 10 (a multiple of 5), and again at 15.
    expect(epochs({ startHeight: 8, startEpoch: 40, epochLength: 5, blocks: 9 })).toEqual(
      [40, 40, 41, 41, 41, 41, 41, 42, 42].map(BigInt),
    );
    // Unset: 1 + height / epochLength, as before.
    expect(epochs({ startHeight: 8, epochLength: 5, blocks: 3 })).toEqual([2n, 2n, 3n]);
    // The last epoch is 2^64-1: two changes (heights 10 and 15) fit from 2^64-3, not from 2^64-2.
    const o = { startHeight: 8, epochLength: 5, blocks: 9 };
    expect(epochs({ ...o, startEpoch: U - 2n }).at(-1)).toBe(U);
    expect(issues({ ...o, startEpoch: U - 1n })).toEqual([
      `startEpoch: must be at most ${U - 2n} for the epochs of 9 blocks to stay within 2^64-1 (one more every 5 blocks), got ${U - 1n}`,
    ]);
    // The run's length stops at the last block whose epoch fits (the one before height 10); an
    // endless run must have room for 10^8 blocks, so such a start is refused for it.
    const room = { ...parseSimulatorOptions({ startHeight: 8, epochLength: 5, blocks: 1 }) };
    expect(blockLimit({ ...room, blocks: undefined, startEpoch: U })).toBe(2);
    expect(issues({ startHeight: 8, epochLength: 5, startEpoch: U })).toEqual([
      `startEpoch: must be at most ${U - 20_000_000n} for the epochs of ${ENDLESS_ROOM_BLOCKS} blocks to stay within 2^64-1 (one more every 5 blocks) ${ENDLESS}, got ${U}`,
    ]);
  });

  it("the largest start values accepted make valid blocks to the last one", () => {
    // Every block full (busy, 1 transaction a block): 3 versions a block, the last one 2^64-1.
    const blocks = [
      ...simulateBlocks({
        scenario: "busy",
        blockCapacity: 1,
        blocks: 3,
        startHeight: U - 2n,
        startVersion: U + 1n - 9n,
        startTimeUsec: U - 500_000n,
      }),
    ];
    expect(blocks.map((b) => [b.height, b.lastVersion, b.timestampUsec])).toEqual([
      [U - 2n, U - 6n, U - 500_000n],
      [U - 1n, U - 3n, U - 250_000n],
      [U, U, U],
    ]);
    expect(issues({ blocks: 3, startHeight: U - 1n, startVersion: 0 })).toEqual([
      `startHeight: must be at most ${U - 2n} for the heights of 3 blocks to stay within 2^64-1, got ${U - 1n}`,
    ]);
    expect(issues({ blocks: 1, blockCapacity: 1, startVersion: U + 1n - 2n })).toEqual([
      `startVersion: must be at most ${U + 1n - 3n} for the versions of 1 block to stay within 2^64-1 (up to 3 a block: blockCapacity 1 plus the block metadata and epilogue), got ${U - 1n}`,
    ]);
  });
});

describe("simulator: an endless run (blocks unset)", () => {
  it(`must have room for ${ENDLESS_ROOM_BLOCKS} blocks`, () => {
    const lastStart = U - BigInt(ENDLESS_ROOM_BLOCKS) + 1n;
    expect(issues({ startHeight: lastStart + 1n, startVersion: 0 })).toEqual([
      `startHeight: must be at most ${lastStart} for the heights of ${ENDLESS_ROOM_BLOCKS} blocks to stay within 2^64-1 ${ENDLESS}, got ${lastStart + 1n}`,
    ]);
    expect(issues({ startHeight: lastStart, startVersion: 0 })).toEqual([]);
    const lastTime = U - BigInt(ENDLESS_ROOM_BLOCKS - 1) * 250_000n;
    expect(issues({ startTimeUsec: lastTime + 1n })).toEqual([
      `startTimeUsec: must be at most ${lastTime} for the timestamps of ${ENDLESS_ROOM_BLOCKS} blocks to stay within 2^64-1 (250000 µs apart) ${ENDLESS}, got ${lastTime + 1n}`,
    ]);
    // One block a day, the longest interval, from the default start time: room for 2.1·10^8.
    expect(issues({ intervalMs: 86_400_000, blockCapacity: 100_000 })).toEqual([]);
  });

  it("runs to the last block whose fields fit, then ends", async () => {
    expect(blockLimit(parseSimulatorOptions({}))).toBe(73_780_176_294_839);
    expect(blockLimit(parseSimulatorOptions({ intervalMs: 86_400_000 }))).toBe(213_484_307);
    expect(blockLimit(parseSimulatorOptions({ clock: "wall" }))).toBe(Number.MAX_SAFE_INTEGER);
    // Options with less room than an endless run is allowed (made by hand, not validated): the
    // generator stops at the last block that fits instead of building an invalid one.
    const tight = { ...parseSimulatorOptions({ startVersion: 0 }), startHeight: U - 4n };
    expect(blockLimit(tight)).toBe(5);
    const blocks = [...generateBlocks(tight)];
    expect(blocks.map((b) => b.height)).toEqual([U - 4n, U - 3n, U - 2n, U - 1n, U]);
    // simulator() ends there too, given the same limit.
    const few = simulator({ blocks: 2, intervalMs: 0, startHeight: U - 1n, startVersion: 0 });
    expect((await lastValueFrom(few.pipe(toArray()))).map((b) => b.height)).toEqual([U - 1n, U]);
  });
});
