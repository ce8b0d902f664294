import type { Prng } from "./prng.js";

/** Number of distinct contracts users call. */
export const CONTRACT_COUNT = 32;
/** Fewest and most gas units a simulated transaction uses. */
export const GAS_USED_RANGE: readonly [min: number, max: number] = [5, 2000];

/** The contracts of the simulated chain: how popular each is and what a call costs. */
export interface ContractPopulation {
  /** A contract index drawn by popularity (Zipf: the k-th most popular has weight 1/k). */
  pick(rng: Prng): number;
  /** Gas used by one call of `contract`: its typical cost × 0.6..1.6, within {@link GAS_USED_RANGE}. */
  gasUsed(contract: number, rng: Prng): number;
}

/**
 * Draw the contract population. Contract 0 is the coin transfer (cheap, about a quarter of
 * all calls); the others have a typical gas cost drawn log-uniformly between 5 and 600.
 * With Zipf weights over 32 contracts, the most common one takes about 25% of a block, so
 * only a hot-contract episode pushes a block above the 50% majority-use-case threshold.
 *
 * @example
 * const contracts = createContractPopulation(createPrng(1, 3));
 * contracts.gasUsed(contracts.pick(rng), rng);
 */
export function createContractPopulation(rng: Prng): ContractPopulation {
  const cumulative = new Float64Array(CONTRACT_COUNT);
  const baseGas = new Float64Array(CONTRACT_COUNT);
  let total = 0;
  for (let k = 0; k < CONTRACT_COUNT; k++) {
    total += 1 / (k + 1);
    cumulative[k] = total;
    baseGas[k] = k === 0 ? 8 : Math.exp(rng.uniform(Math.log(5), Math.log(600)));
  }
  const [lo, hi] = GAS_USED_RANGE;
  return {
    pick(r) {
      const x = r.float() * total;
      let k = 0;
      while (k < CONTRACT_COUNT - 1 && cumulative[k]! <= x) k++;
      return k;
    },
    gasUsed(contract, r) {
      const g = Math.round(baseGas[contract]! * r.uniform(0.6, 1.6));
      return Math.min(Math.max(g, lo), hi);
    },
  };
}
