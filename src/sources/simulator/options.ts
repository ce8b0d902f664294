import * as z from "zod";
import type { U64Input } from "../../core/blockSample.js";
import { describeValue } from "../../core/describeValue.js";
import { InvalidConfigError, type ValidationIssue } from "../../core/errors.js";
import { wholeNumberError } from "../../core/optionSchemas.js";
import { u64Schema as u64 } from "../../core/u64Schema.js";
import { validateShape } from "../../core/validate.js";
import { SCENARIOS, type Scenario } from "./regimes.js";
import { roomIssues } from "./u64Room.js";

/** Options of `simulator()` and `simulateBlocks()`. Every field has a default. */
export interface SimulatorOptions {
  /** Seed of every random draw: same seed (and options), same blocks. @default 1 */
  seed?: number | undefined;
  /** Mix of demand regimes: `quiet`, `busy`, `spike` (quiet with periodic spikes), `mixed`. @default "mixed" */
  scenario?: Scenario | undefined;
  /**
   * How many blocks to produce; `undefined` runs on until the last block whose height, versions
   * and timestamp fit in u64 (with the defaults, 7.4·10^13 blocks: 584,000 years at 250 ms). Every
   * block must fit: start values that would take a field past 2^64-1 within `blocks` blocks (or
   * within 10^8 blocks, when unset) are refused. @default undefined
   */
  blocks?: number | undefined;
  /**
   * Milliseconds between blocks for `simulator()` (wall clock); `0` = as fast as possible.
   * Also the step of synthetic timestamps (250 ms when `0`). @default 250
   */
  intervalMs?: number | undefined;
  /** Most user transactions a block takes; a block that takes this many is full. @default 250 */
  blockCapacity?: number | undefined;
  /** Most transactions left waiting after a block; the lowest-priced beyond it are dropped. @default 8 × blockCapacity */
  mempoolCapacity?: number | undefined;
  /** Height of the first block. @default 1 */
  startHeight?: U64Input | undefined;
  /** `first_version` of the first block. @default 2 × startHeight */
  startVersion?: U64Input | undefined;
  /**
   * Blocks per epoch: by default the epoch is `1 + floor(height / epochLength)`; a new epoch
   * starts at each height that is a multiple of it. @default 1000
   */
  epochLength?: number | undefined;
  /**
   * Epoch of the first block (a chain continued after another's last block keeps its epoch);
   * each later height that is a multiple of `epochLength` starts the next one.
   * @default 1 + floor(startHeight / epochLength)
   */
  startEpoch?: U64Input | undefined;
  /** Timestamp of the first block with the synthetic clock, µs since the Unix epoch. @default 1700000000000000 */
  startTimeUsec?: U64Input | undefined;
  /**
   * `synthetic`: timestamps are `startTimeUsec + i × intervalMs` (deterministic).
   * `wall`: each block is stamped with the wall clock when it is produced (strictly increasing).
   * @default "synthetic"
   */
  clock?: "synthetic" | "wall" | undefined;
  /** Wall clock in ms for `clock: "wall"` (tests inject one). @default Date.now */
  now?: (() => number) | undefined;
  /** Chain id carried by every block. @default 4 */
  chainId?: number | undefined;
  /** Minimum gas unit price carried by every block (and the lowest bid). @default 100 */
  minGasUnitPrice?: U64Input | undefined;
}

/** {@link SimulatorOptions} validated, with every default filled in. */
export interface ResolvedSimulatorOptions {
  readonly seed: number;
  readonly scenario: Scenario;
  readonly blocks: number | undefined;
  readonly intervalMs: number;
  readonly blockCapacity: number;
  readonly mempoolCapacity: number;
  readonly startHeight: bigint;
  readonly startVersion: bigint;
  readonly epochLength: number;
  readonly startEpoch: bigint;
  readonly startTimeUsec: bigint;
  readonly clock: "synthetic" | "wall";
  readonly now: () => number;
  readonly chainId: number;
  readonly minGasUnitPrice: number;
}

/** Blocks per epoch when `epochLength` is not given. */
export const DEFAULT_EPOCH_LENGTH = 1000;

/** Largest minimum price accepted: bids go up to 10^4 × the minimum and must stay exact. */
const MAX_MIN_PRICE = 1_000_000_000;

// The simulator's options come from code and flags, never from a config file: a string of
// digits is a string the caller passed, echoed as one (not describeNumber's "too large").
const count = (what: string) => z.int({ error: wholeNumberError(what, describeValue) });

const shape = {
  seed: z
    .number({ error: "must be an integer from 0 to 2^53-1" })
    .refine((v) => Number.isSafeInteger(v) && v >= 0, "must be an integer from 0 to 2^53-1")
    .default(1),
  scenario: z
    .enum(SCENARIOS as [Scenario, ...Scenario[]], {
      error: (iss) =>
        `must be one of ${SCENARIOS.map((s) => `"${s}"`).join(", ")}, got ${describeValue(iss.input)}`,
    })
    .default("mixed"),
  blocks: count("blocks").min(0, "must not be negative").optional(),
  intervalMs: z
    .number({ error: "must be a number of milliseconds" })
    .min(0, "must not be negative")
    .max(86_400_000, "must be at most one day (86400000)")
    .default(250),
  blockCapacity: count("transactions")
    .min(1, "must be at least 1")
    .max(100_000, "must be at most 100000")
    .default(250),
  mempoolCapacity: count("transactions")
    .min(0, "must not be negative")
    .max(10_000_000, "must be at most 10000000")
    .optional(),
  startHeight: u64.default(1n),
  startVersion: u64.optional(),
  epochLength: count("blocks").min(1, "must be at least 1").default(DEFAULT_EPOCH_LENGTH),
  startEpoch: u64.optional(),
  startTimeUsec: u64.default(1_700_000_000_000_000n),
  clock: z
    .enum(["synthetic", "wall"], { error: 'must be "synthetic" or "wall"' })
    .default("synthetic"),
  now: z
    .custom<() => number>((v) => typeof v === "function", "must be a function returning ms")
    .optional(),
  chainId: z
    .int({ error: "must be an integer" })
    .min(0, "must be a chain id from 0 to 255")
    .max(255, "must be a chain id from 0 to 255")
    .default(4),
  minGasUnitPrice: u64.default(100n),
};

/** The options the u64 room of the run depends on. */
const ROOM_KEYS = [
  "blocks",
  "startHeight",
  "startVersion",
  "startTimeUsec",
  "blockCapacity",
  "epochLength",
  "startEpoch",
  "intervalMs",
  "clock",
] as const;

function crossCheck(
  f: Partial<Record<keyof typeof shape, unknown>>,
  input: unknown,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const min = f.minGasUnitPrice as bigint | undefined;
  if (min !== undefined && (min < 1n || min > BigInt(MAX_MIN_PRICE)))
    issues.push({
      path: "minGasUnitPrice",
      message: `must be from 1 to ${MAX_MIN_PRICE}, got ${min}`,
    });
  // Every height, version and timestamp of the run must fit in u64: checked unless one of the
  // options it depends on is itself wrong (its own issue says so).
  const given = (key: string) =>
    (input as Record<string, unknown> | undefined)?.[key] !== undefined;
  if (ROOM_KEYS.every((key) => f[key] !== undefined || !given(key))) {
    const startHeight = f.startHeight as bigint;
    issues.push(
      ...roomIssues(
        {
          blocks: f.blocks as number | undefined,
          startHeight,
          startVersion: (f.startVersion as bigint | undefined) ?? 2n * startHeight,
          startTimeUsec: f.startTimeUsec as bigint,
          blockCapacity: f.blockCapacity as number,
          epochLength: f.epochLength as number,
          startEpoch: f.startEpoch as bigint | undefined,
          intervalMs: f.intervalMs as number,
          clock: f.clock as "synthetic" | "wall",
        },
        given,
      ),
    );
  }
  return issues;
}

/**
 * Validate simulator options and fill in the defaults.
 *
 * @throws {InvalidConfigError} listing every problem (path + message), not just the first.
 * @example
 * const o = parseSimulatorOptions({ seed: 7, scenario: "busy" });
 * o.blockCapacity; // 250
 */
export function parseSimulatorOptions(input: SimulatorOptions = {}): ResolvedSimulatorOptions {
  const r = validateShape(shape, input, crossCheck);
  if (!r.ok) throw new InvalidConfigError(r.issues);
  const v = r.value;
  return Object.freeze({
    seed: v.seed,
    scenario: v.scenario,
    blocks: v.blocks,
    intervalMs: v.intervalMs,
    blockCapacity: v.blockCapacity,
    mempoolCapacity: v.mempoolCapacity ?? 8 * v.blockCapacity,
    startHeight: v.startHeight,
    startVersion: v.startVersion ?? 2n * v.startHeight,
    epochLength: v.epochLength,
    startEpoch: v.startEpoch ?? 1n + v.startHeight / BigInt(v.epochLength),
    startTimeUsec: v.startTimeUsec,
    clock: v.clock,
    now: v.now ?? Date.now,
    chainId: v.chainId,
    minGasUnitPrice: Number(v.minGasUnitPrice),
  });
}
