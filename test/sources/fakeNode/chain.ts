import type { BlockSampleInput } from "../../../src/core/blockSample.js";
import { mulberry32 } from "../../helpers/prng.js";

/** One user transaction as the fake chain means it (rendered to API JSON on request). */
export interface FakeUserTxn {
  readonly price: bigint;
  readonly gasUsed: bigint;
  /** Normalised contract address called through an entry function; undefined for a script. */
  readonly contract: string | undefined;
  /** The address as written in the payload (may have leading zeros or upper case). */
  readonly spelling: string | undefined;
  readonly success: boolean;
}

/** One block of the fake chain. */
export interface FakeBlock {
  readonly height: bigint;
  readonly epoch: bigint;
  readonly timestampUsec: bigint;
  readonly firstVersion: bigint;
  readonly lastVersion: bigint;
  readonly users: readonly FakeUserTxn[];
  /** validator_transaction entries after the metadata (ignored by the source). */
  readonly validatorTxns: number;
  /** A transaction of a type the API may add later (must be ignored). */
  readonly unknownTxn: boolean;
  /** How the block ends: epilogue with end info, epilogue without, or old-style checkpoint. */
  readonly ending: "epilogue" | "epilogue_no_info" | "checkpoint" | "genesis";
  readonly gasLimitReached: boolean;
  readonly outputLimitReached: boolean;
}

/** Parts of a block a test can fix. */
export interface BlockShape {
  users?: number;
  validatorTxns?: number;
  unknownTxn?: boolean;
  ending?: "epilogue" | "epilogue_no_info" | "checkpoint";
  gasLimitReached?: boolean;
  outputLimitReached?: boolean;
}

/** Options of {@link createFakeChain}. */
export interface FakeChainOptions {
  /** @default 1 */
  seed?: number;
  /** Height of the oldest block. @default 1000 */
  firstHeight?: number;
  /** Blocks generated at once. @default 200 */
  blocks?: number;
  /** @default 4 */
  chainId?: number;
  /** Epoch of a height: 1 + floor(height / epochLength). @default 40 */
  epochLength?: number;
  /** Minimum gas unit price of an epoch. @default 150 in even epochs, 100 in odd ones */
  minPriceOfEpoch?: (epoch: bigint) => bigint;
  /** User transactions per block, drawn uniformly. @default [0, 30] */
  usersPerBlock?: readonly [number, number];
  /** Fix the shape of some heights (the random draws still happen, so other blocks stay the same). */
  shapeAt?: (height: bigint) => BlockShape | undefined;
  /** Blocks below this height end with a state checkpoint (no end info). @default firstHeight + 20 */
  epilogueFromHeight?: number;
  /**
   * A block's timestamp (µs), asked when it is generated: `() => BigInt(Date.now()) * 1000n`
   * makes a chain as new as the wall clock. @default 250 ms apart from November 2023
   */
  timestampAt?: (height: bigint) => bigint;
}

const CONTRACTS: readonly (readonly [string, string])[] = [
  ["0x1", "0x1"],
  ["0xa", `0x${"0".repeat(63)}a`],
  ["0xbeef", "0xBEEF"],
  ["0x5a1e", "0x5a1e"],
  ["0xc0ffee", "0x00c0ffee"],
];
const PRICE_STEPS = [0n, 0n, 0n, 7n, 20n, 50n, 100n, 200n, 400n, 900n, 4_900n] as const;

/** A deterministic, growing chain: same options, same blocks. */
export interface FakeChain {
  readonly chainId: number;
  /** Every block ever generated (pruned ones included), by ascending height. */
  readonly blocks: readonly FakeBlock[];
  readonly tip: bigint;
  readonly oldest: bigint;
  /** Generate `n` more blocks on top. */
  addBlocks(n: number): void;
  /** Forget the blocks below `height` (they answer 410 from now on). */
  prune(height: bigint): void;
  block(height: bigint): FakeBlock | undefined;
  /** The block holding `version`, if generated. */
  blockAtVersion(version: bigint): FakeBlock | undefined;
  minPriceOfEpoch(epoch: bigint): bigint;
  /** The block sample a faithful source must emit for `height` (wire shape). */
  expectedSample(height: bigint): BlockSampleInput;
  /** Expected samples of heights `from`..`to` inclusive. */
  expectedSamples(from: bigint, to: bigint): BlockSampleInput[];
}

/** Total transactions of a block (metadata, validator, users, unknown, ending). */
export function txnCount(b: FakeBlock): number {
  if (b.ending === "genesis") return 1;
  return 1 + b.validatorTxns + b.users.length + (b.unknownTxn ? 1 : 0) + 1;
}

/**
 * Create the fake chain.
 *
 * @example
 * const chain = createFakeChain({ blocks: 50 }); chain.addBlocks(10); chain.tip; // 1059n
 */
export function createFakeChain(options: FakeChainOptions = {}): FakeChain {
  const random = mulberry32(options.seed ?? 1);
  const firstHeight = BigInt(options.firstHeight ?? 1000);
  const chainId = options.chainId ?? 4;
  const epochLength = BigInt(options.epochLength ?? 40);
  const minPriceOfEpoch = options.minPriceOfEpoch ?? ((e) => (e % 2n === 0n ? 150n : 100n));
  const [lo, hi] = options.usersPerBlock ?? [0, 30];
  const epilogueFrom = BigInt(options.epilogueFromHeight ?? Number(firstHeight) + 20);
  const timestampAt = options.timestampAt ?? ((h: bigint) => 1_700_000_000_000_000n + h * 250_000n);
  const blocks: FakeBlock[] = [];
  let oldest = firstHeight;
  const int = (n: number) => Math.floor(random() * n);

  function makeUsers(count: number, min: bigint): FakeUserTxn[] {
    const hot = random() < 0.35 ? CONTRACTS[int(CONTRACTS.length)]! : undefined;
    const users: FakeUserTxn[] = [];
    for (let i = 0; i < count; i++) {
      const r = random();
      const pick = hot && r < 0.7 ? hot : r < 0.8 ? CONTRACTS[int(CONTRACTS.length)]! : undefined;
      users.push({
        price: min + PRICE_STEPS[int(PRICE_STEPS.length)]!,
        gasUsed: BigInt(5 + int(2_000)),
        contract: pick?.[0],
        spelling: pick?.[1],
        success: random() < 0.95,
      });
    }
    return users;
  }

  function generate(height: bigint, firstVersion: bigint): FakeBlock {
    const timestampUsec = timestampAt(height);
    if (height === 0n)
      return {
        height,
        epoch: 0n,
        timestampUsec,
        firstVersion,
        lastVersion: firstVersion,
        users: [],
        validatorTxns: 0,
        unknownTxn: false,
        ending: "genesis",
        gasLimitReached: false,
        outputLimitReached: false,
      };
    const epoch = 1n + height / epochLength;
    const shape = options.shapeAt?.(height) ?? {};
    const drawn = lo + int(hi - lo + 1);
    const users = makeUsers(shape.users ?? drawn, minPriceOfEpoch(epoch));
    const validatorTxns = random() < 0.1 ? 1 + int(2) : 0;
    const unknownTxn = random() < 0.05;
    const ending =
      height < epilogueFrom ? "checkpoint" : random() < 0.1 ? "epilogue_no_info" : "epilogue";
    const full = random();
    const b: FakeBlock = {
      height,
      epoch,
      timestampUsec,
      firstVersion,
      lastVersion: 0n,
      users,
      validatorTxns: shape.validatorTxns ?? validatorTxns,
      unknownTxn: shape.unknownTxn ?? unknownTxn,
      ending: shape.ending ?? ending,
      gasLimitReached: shape.gasLimitReached ?? full < 0.25,
      outputLimitReached: shape.outputLimitReached ?? (full >= 0.25 && full < 0.35),
    };
    return { ...b, lastVersion: firstVersion + BigInt(txnCount(b)) - 1n };
  }

  function addBlocks(n: number) {
    for (let i = 0; i < n; i++) {
      const prev = blocks[blocks.length - 1];
      const height = prev ? prev.height + 1n : firstHeight;
      const firstVersion = prev ? prev.lastVersion + 1n : firstHeight * 7n;
      blocks.push(generate(height, firstVersion));
    }
  }

  function block(height: bigint) {
    if (height < oldest) return undefined;
    return blocks[Number(height - firstHeight)];
  }

  function blockAtVersion(version: bigint) {
    let lo = 0;
    let hi = blocks.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const b = blocks[mid]!;
      if (version < b.firstVersion) hi = mid - 1;
      else if (version > b.lastVersion) lo = mid + 1;
      else return b;
    }
    return undefined;
  }

  function expectedSample(height: bigint): BlockSampleInput {
    const b = blocks[Number(height - firstHeight)];
    if (!b) throw new Error(`fake chain has no block ${height}`);
    const counts = new Map<string, number>();
    // Calls to the special addresses 0x0-0xf (0x1, 0xa here) are the platform's use case, not
    // a contract's, as the node counts them.
    for (const u of b.users)
      if (u.contract && BigInt(u.contract) >= 16n)
        counts.set(u.contract, (counts.get(u.contract) ?? 0) + 1);
    const top = Math.max(0, ...counts.values());
    return {
      height: b.height.toString(),
      epoch: b.epoch.toString(),
      timestamp_usec: b.timestampUsec.toString(),
      first_version: b.firstVersion.toString(),
      last_version: b.lastVersion.toString(),
      chain_id: chainId,
      min_gas_unit_price: minPriceOfEpoch(b.epoch).toString(),
      gas_unit_prices: b.users.map((u) => u.price.toString()),
      gas_used: b.users.map((u) => u.gasUsed.toString()),
      block_gas_limit_reached:
        b.ending === "epilogue" ? b.gasLimitReached || b.outputLimitReached : undefined,
      majority_use_case_fraction: b.users.length > 0 ? top / b.users.length : undefined,
    };
  }

  addBlocks(options.blocks ?? 200);
  return {
    chainId,
    blocks,
    get tip() {
      return blocks[blocks.length - 1]!.height;
    },
    get oldest() {
      return oldest;
    },
    addBlocks,
    prune(height) {
      if (height > oldest) oldest = height;
    },
    block,
    blockAtVersion,
    minPriceOfEpoch,
    expectedSample,
    expectedSamples(from, to) {
      const out: BlockSampleInput[] = [];
      for (let h = from; h <= to; h++) out.push(expectedSample(h));
      return out;
    },
  };
}
