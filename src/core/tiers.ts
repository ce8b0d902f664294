/** The three estimate tiers, named as the served estimate names them. */
export type Tier = "deprioritized" | "regular" | "prioritized";

/**
 * The tiers, cheapest first (the order of the served estimate and of its BCS fields).
 *
 * @example
 * for (const tier of TIERS) console.log(tier, snapshot.estimate?.[tier]);
 */
export const TIERS: readonly Tier[] = Object.freeze(["deprioritized", "regular", "prioritized"]);
