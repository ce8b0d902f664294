/**
 * The seed of a fuzz suite: `FC_SEED` when set (to replay a run), else a fresh one. It is always
 * printed with the suite's name, so any run can be replayed with `FC_SEED=<seed> npx vitest run
 * <file>`; fast-check also prints the seed and the path of a failing case.
 *
 * @example
 * const seed = fuzzSeed("aptosRest node responses");
 * await fc.assert(property, { seed });
 */
export function fuzzSeed(suite: string): number {
  const given = process.env.FC_SEED;
  const seed =
    given !== undefined && given !== ""
      ? Number(given)
      : (Date.now() ^ Math.floor(Math.random() * 2 ** 31)) | 0;
  if (!Number.isInteger(seed)) throw new Error(`FC_SEED must be an integer (got "${given}")`);
  console.log(`${suite}: FC_SEED=${seed}`);
  return seed;
}
