import type { Parameters } from "fast-check";

/**
 * The fast-check seed of this test file: `FC_SEED` when set, otherwise a fresh one, so every run
 * explores new cases. It is printed, and `FC_SEED=<seed> npx vitest run <file>` replays a failure
 * (fast-check also prints the seed and path of the failing case).
 */
export const FC_SEED = process.env.FC_SEED
  ? Number(process.env.FC_SEED)
  : Math.floor(Math.random() * 2 ** 31);
console.log(`fast-check seed ${FC_SEED} (replay with FC_SEED=${FC_SEED})`);

/**
 * fast-check parameters with the file's seed.
 *
 * @example
 * fc.assert(fc.property(fc.nat(), (n) => n >= 0), fcParams(100));
 */
export function fcParams<T>(numRuns: number, more: Parameters<T> = {}): Parameters<T> {
  return { ...more, seed: FC_SEED, numRuns };
}
