import { type BlockSample, parseBlockSample } from "../../core/blockSample.js";
import { readClock } from "../../core/readClock.js";
import { createMempool, type SimTxn } from "./mempool.js";
import {
  parseSimulatorOptions,
  type ResolvedSimulatorOptions,
  type SimulatorOptions,
} from "./options.js";
import { CONTRACT_COUNT, createContractPopulation, GAS_USED_RANGE } from "./population.js";
import { createPrng, type Prng } from "./prng.js";
import { createRegimeSchedule, REGIMES, type RegimeParams } from "./regimes.js";
import { blockLimit, timestampStepUsec } from "./u64Room.js";

/**
 * Latest wall-clock time taken, in ms (year 318,857): in microseconds it leaves room in u64 for
 * the timestamps that follow.
 */
const MAX_CLOCK_MS = 1e16;

/** Blocks a transaction stays valid after it arrives (drawn uniformly per transaction). */
export const TXN_TTL_BLOCKS: readonly [min: number, max: number] = [40, 400];
/** Highest bid, as a multiple of the minimum gas unit price. */
export const MAX_BID_MULTIPLE = 10_000;
/** Chance per block that a hot-contract episode (a mint, an airdrop) starts. */
export const EPISODE_CHANCE = 1 / 300;

/** One of weighted values (`[value, weight]` pairs), drawn with `rng`. */
function pick(options: readonly (readonly [number, number])[], rng: Prng): number {
  let total = 0;
  for (const [, w] of options) total += w;
  let r = rng.float() * total;
  for (const [value, w] of options) {
    r -= w;
    if (r < 0) return value;
  }
  return options[options.length - 1]![0];
}

// Every possible gas_used value as a BigInt, converted once.
const GAS_BIGINT: readonly bigint[] = Array.from({ length: GAS_USED_RANGE[1] + 1 }, (_, g) =>
  BigInt(g),
);

// Independent random streams for one seed.
const STREAM_SCHEDULE = 1;
const STREAM_TXNS = 2;
const STREAM_CONTRACTS = 3;
const STREAM_EPISODES = 4;
const STREAM_PRODUCERS = 5;

interface Episode {
  contract: number;
  left: number;
  /** Extra arrivals per block, as a multiple of the block capacity. */
  volume: number;
  /** Multiplier on the regime's bids: minters outbid everyone else. */
  premium: number;
}

/**
 * The simulated chain as a synchronous, lazy sequence of validated blocks: the pure core
 * shared by `simulator()` (which paces it) and `gasdigest simulate` (which writes it out).
 * Same options (seed included), same blocks, byte for byte, with the default synthetic clock.
 *
 * Each block: the regime schedule gives the demand; Poisson arrivals with seeded bids, contracts
 * and gas join the mempool; expired transactions leave; the block takes the highest bids up to
 * `blockCapacity`; the lowest bids beyond `mempoolCapacity` are dropped.
 *
 * @throws {InvalidConfigError} when an option is invalid, or the start values and `blocks` would
 * take a height, version or timestamp past 2^64-1 (at call time, not on the first `next()`).
 * @example
 * import { serializeBlockSample, simulateBlocks } from "gasdigest";
 * for (const block of simulateBlocks({ scenario: "spike", blocks: 1000, seed: 7 }))
 *   process.stdout.write(`${serializeBlockSample(block)}\n`);
 */
export function simulateBlocks(options: SimulatorOptions = {}): IterableIterator<BlockSample> {
  return generateBlocks(parseSimulatorOptions(options));
}

/**
 * {@link simulateBlocks} on options already checked by `parseSimulatorOptions` (no second
 * validation): for a caller that resolves the options once and starts several chains.
 *
 * @example
 * const resolved = parseSimulatorOptions({ scenario: "busy", blocks: 100 });
 * const first = [...generateBlocks(resolved)];
 * const again = [...generateBlocks(resolved)]; // a second chain, the same blocks
 */
export function* generateBlocks(
  o: ResolvedSimulatorOptions,
): Generator<BlockSample, void, undefined> {
  const schedule = createRegimeSchedule(o.scenario, createPrng(o.seed, STREAM_SCHEDULE));
  const rng = createPrng(o.seed, STREAM_TXNS);
  const contracts = createContractPopulation(createPrng(o.seed, STREAM_CONTRACTS));
  const episodeRng = createPrng(o.seed, STREAM_EPISODES);
  const producerRng = createPrng(o.seed, STREAM_PRODUCERS);
  const mempool = createMempool(o.mempoolCapacity);
  const cap = o.blockCapacity;
  const min = o.minGasUnitPrice;
  const maxBid = min * MAX_BID_MULTIPLE;
  const epochLength = BigInt(o.epochLength);
  // The epoch changes at each height that is a multiple of `epochLength`, from `startEpoch`.
  const firstEpochIndex = o.startHeight / epochLength;
  const stepUsec = timestampStepUsec(o.intervalMs);
  const blocks = blockLimit(o);
  const minBig = BigInt(min);
  const perContract = new Uint32Array(CONTRACT_COUNT);
  let version = o.startVersion;
  let lastTimestamp = -1n;
  let episode: Episode | undefined;

  const bid = (p: RegimeParams, premium: number): number => {
    if (premium === 1 && rng.chance(p.atMinShare)) return min;
    if (premium === 1 && p.pricePoints && rng.chance(p.pricePoints.share))
      return Math.min(min * pick(p.pricePoints.points, rng), maxBid);
    const b = Math.round(min * premium * rng.lognormal(p.bidMedian, p.bidSigma));
    return Math.min(Math.max(b, min), maxBid);
  };
  const arrive = (p: RegimeParams, i: number, contract: number, premium: number): SimTxn => ({
    price: bid(p, premium),
    contract,
    gasUsed: contracts.gasUsed(contract, rng),
    expiresAt: i + rng.int(TXN_TTL_BLOCKS[0], TXN_TTL_BLOCKS[1]),
  });

  for (let i = 0; i < blocks; i++) {
    const segment = schedule.next();
    const params = REGIMES[segment.regime];
    if (episode === undefined && episodeRng.chance(EPISODE_CHANCE))
      episode = {
        contract: episodeRng.int(1, CONTRACT_COUNT - 1),
        left: episodeRng.int(1, 4),
        volume: episodeRng.uniform(0.6, 1),
        premium: episodeRng.uniform(1.2, 2),
      };

    const arrivals: SimTxn[] = [];
    const n = rng.poisson(params.arrivalRate * cap * segment.intensity);
    for (let k = 0; k < n; k++) arrivals.push(arrive(params, i, contracts.pick(rng), 1));
    if (episode) {
      const extra = rng.poisson(episode.volume * cap);
      for (let k = 0; k < extra; k++)
        arrivals.push(arrive(params, i, episode.contract, episode.premium));
      if (--episode.left === 0) episode = undefined;
    }

    // Producers of a first-price chain (the congested regime): now and then a short block, a
    // reserve price of their own above which they take transactions as they reached them, and
    // now and then their own transaction at the minimum price.
    const producers = params.producers;
    let built: readonly SimTxn[];
    let own = false;
    if (producers) {
      let blockCap = cap;
      if (producerRng.chance(producers.shortChance))
        blockCap = Math.max(1, Math.round(cap * producerRng.uniform(0.05, 0.9)));
      own = blockCap === cap && producerRng.chance(producers.ownChance);
      if (own) blockCap = cap - 1;
      const reserve = min * pick(producers.reserve, producerRng);
      built = mempool.buildAbove(arrivals, i, blockCap, reserve, () => producerRng.float()).txns;
    } else built = mempool.build(arrivals, i, cap).txns;
    const txns = own
      ? [...built, { price: min, contract: 0, gasUsed: GAS_USED_RANGE[0], expiresAt: i }]
      : built;
    const height = o.startHeight + BigInt(i);
    const firstVersion = version;
    // Block metadata transaction, the user transactions, then the block epilogue.
    const lastVersion = firstVersion + BigInt(txns.length + 1);
    version = lastVersion + 1n;

    let timestamp: bigint;
    if (o.clock === "wall") {
      timestamp = BigInt(
        Math.floor(readClock(o.now, "the simulator's clock", 0, MAX_CLOCK_MS) * 1000),
      );
      if (timestamp <= lastTimestamp) timestamp = lastTimestamp + 1n;
    } else timestamp = o.startTimeUsec + BigInt(i) * stepUsec;
    lastTimestamp = timestamp;

    perContract.fill(0);
    let top = 0;
    const prices = new Array<bigint>(txns.length);
    const gasUsed = new Array<bigint>(txns.length);
    for (let k = 0; k < txns.length; k++) {
      const t = txns[k]!;
      prices[k] = t.price === min ? minBig : BigInt(t.price);
      gasUsed[k] = GAS_BIGINT[t.gasUsed]!;
      const c = perContract[t.contract]! + 1;
      perContract[t.contract] = c;
      if (c > top) top = c;
    }

    yield parseBlockSample({
      height,
      epoch: o.startEpoch + height / epochLength - firstEpochIndex,
      timestamp_usec: timestamp,
      first_version: firstVersion,
      last_version: lastVersion,
      chain_id: o.chainId,
      min_gas_unit_price: minBig,
      gas_unit_prices: prices,
      gas_used: gasUsed,
      block_gas_limit_reached: txns.length >= cap,
      majority_use_case_fraction: txns.length > 0 ? top / txns.length : null,
    });
  }
}
