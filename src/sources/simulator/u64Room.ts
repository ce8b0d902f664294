import type { ValidationIssue } from "../../core/errors.js";
import { U64_MAX } from "../../core/u64.js";

/**
 * Blocks an endless run (`blocks` unset) must have room for before a height, version or
 * timestamp would pass 2^64-1: start values leaving less are refused at the call. 10^8 blocks are
 * 289 days at 250 ms, and fit whatever the other options (a block a day from the default start
 * time reaches 8.6·10^18 µs). The run itself goes on to the last block that fits.
 */
export const ENDLESS_ROOM_BLOCKS = 100_000_000;

/** What decides how many blocks fit in u64 (the simulator's resolved options). */
export interface RoomOptions {
  readonly blocks: number | undefined;
  readonly startHeight: bigint;
  readonly startVersion: bigint;
  readonly startTimeUsec: bigint;
  readonly blockCapacity: number;
  readonly epochLength: number;
  /** The first block's epoch, when set (otherwise `1 + startHeight / epochLength`). */
  readonly startEpoch?: bigint | undefined;
  readonly intervalMs: number;
  readonly clock: "synthetic" | "wall";
}

/**
 * The step of synthetic timestamps, in µs: `intervalMs`, or 250 ms when it is 0; at least 1 µs.
 *
 * @example
 * timestampStepUsec(0); // 250000n
 */
export function timestampStepUsec(intervalMs: number): bigint {
  return BigInt(Math.max(1, Math.round((intervalMs || 250) * 1000)));
}

const max0 = (n: bigint) => (n < 0n ? 0n : n);

/**
 * How many blocks fit for each generated field, from the start values: heights (and epochs: by
 * default `1 + height / epochLength`, so with `epochLength` 1 the last height is 2^64-2; from a
 * given `startEpoch`, one more at each height that is a multiple of `epochLength`), versions
 * (counting every block full: `blockCapacity` user transactions plus the block metadata and the
 * epilogue) and synthetic timestamps (none with the wall clock).
 */
function room(o: RoomOptions) {
  // The default epoch is 1 + height / epochLength: with epochLength 1 it passes u64 a height
  // before the height does. From a given startEpoch, the epochs' own room says.
  const lastHeight = o.epochLength === 1 && o.startEpoch === undefined ? U64_MAX - 1n : U64_MAX;
  const perBlock = BigInt(o.blockCapacity + 2);
  const length = BigInt(o.epochLength);
  return {
    heights: max0(lastHeight - o.startHeight + 1n),
    // From `startEpoch`, the epoch passes 2^64-1 at the (2^64-1 − startEpoch + 1)-th height
    // after the start that is a multiple of `epochLength`.
    epochs:
      o.startEpoch === undefined
        ? undefined
        : (o.startHeight / length + (U64_MAX - o.startEpoch) + 1n) * length - o.startHeight,
    versions: max0(U64_MAX + 1n - o.startVersion) / perBlock,
    timestamps:
      o.clock === "wall"
        ? undefined
        : (U64_MAX - o.startTimeUsec) / timestampStepUsec(o.intervalMs) + 1n,
  };
}

/**
 * How many blocks the run produces: `blocks`, or for an endless run every block whose height,
 * versions and timestamp fit in u64 (capped at 2^53-1, which no run reaches).
 *
 * @example
 * blockLimit(parseSimulatorOptions({ blocks: 10 })); // 10
 * blockLimit(parseSimulatorOptions({})); // 73780176294839 (timestamps 250 ms apart run out first)
 */
export function blockLimit(o: RoomOptions): number {
  if (o.blocks !== undefined) return o.blocks;
  const r = room(o);
  let fit = r.heights < r.versions ? r.heights : r.versions;
  if (r.epochs !== undefined && r.epochs < fit) fit = r.epochs;
  if (r.timestamps !== undefined && r.timestamps < fit) fit = r.timestamps;
  return fit > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(fit);
}

/**
 * The issues of start values that would make a generated field pass 2^64-1 within `blocks`
 * blocks, or {@link ENDLESS_ROOM_BLOCKS} for an endless run. Each names the start option the
 * user set (`startHeight`, `startVersion`, `startTimeUsec`), with the largest value that fits,
 * or `blocks` with the most blocks that fit when the start is the default or no start fits.
 * `given(key)` tells whether the user set that option.
 */
export function roomIssues(o: RoomOptions, given: (key: string) => boolean): ValidationIssue[] {
  const endless = o.blocks === undefined;
  const n = BigInt(o.blocks ?? ENDLESS_ROOM_BLOCKS);
  const note = endless
    ? ` (blocks is unset: an endless run must have room for ${ENDLESS_ROOM_BLOCKS} blocks; set blocks to run fewer)`
    : "";
  const r = room(o);
  const issues: ValidationIssue[] = [];
  // One field: its room in blocks, its start option, and the largest start that fits n blocks.
  const check = (
    [fit, key, got, maxStart]: [bigint, string, bigint, bigint],
    field: string,
    detail = "",
  ) => {
    if (n <= fit) return;
    issues.push(
      (given(key) || endless) && maxStart >= 0n
        ? {
            path: key,
            message: `must be at most ${maxStart} for the ${field} of ${n} ${n === 1n ? "block" : "blocks"} to stay within 2^64-1${detail}${note}, got ${got}`,
          }
        : {
            path: "blocks",
            message: `must be at most ${fit} for the ${field} to stay within 2^64-1 from ${key} ${got}${detail}, got ${n}`,
          },
    );
  };
  // The default epoch is 1 + height / epochLength: with epochLength 1 it passes u64 a height
  // before the height does. From a given startEpoch, the epochs' own room says.
  const lastHeight = o.epochLength === 1 && o.startEpoch === undefined ? U64_MAX - 1n : U64_MAX;
  const heightRoom: [bigint, string, bigint, bigint] = [
    r.heights,
    "startHeight",
    o.startHeight,
    lastHeight - n + 1n,
  ];
  if (o.epochLength === 1 && o.startEpoch === undefined)
    check(heightRoom, "heights and epochs", " (epochLength 1)");
  else check(heightRoom, "heights");
  if (r.epochs !== undefined && o.startEpoch !== undefined) {
    const length = BigInt(o.epochLength);
    const changes = (o.startHeight + n - 1n) / length - o.startHeight / length;
    check(
      [r.epochs, "startEpoch", o.startEpoch, U64_MAX - changes],
      "epochs",
      ` (one more every ${o.epochLength} ${o.epochLength === 1 ? "block" : "blocks"})`,
    );
  }
  const cap = o.blockCapacity;
  const perBlock = ` (up to ${cap + 2} a block: blockCapacity ${cap} plus the block metadata and epilogue`;
  const maxVersion = U64_MAX + 1n - n * BigInt(cap + 2);
  if (given("startVersion") || !given("startHeight"))
    check([r.versions, "startVersion", o.startVersion, maxVersion], "versions", `${perBlock})`);
  else
    check(
      [r.versions, "startHeight", o.startHeight, maxVersion < 0n ? -1n : maxVersion / 2n],
      "versions",
      `${perBlock}; startVersion is unset, so 2 × startHeight)`,
    );
  if (r.timestamps !== undefined) {
    const step = timestampStepUsec(o.intervalMs);
    const maxTime = U64_MAX - (n - 1n) * step;
    check(
      [r.timestamps, "startTimeUsec", o.startTimeUsec, maxTime],
      "timestamps",
      ` (${step} µs apart)`,
    );
  }
  return issues;
}
