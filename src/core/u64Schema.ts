import { z } from "zod";
import { parseU64 } from "./u64.js";

/**
 * zod schema of a u64 given as a JSON integer, a decimal string or a BigInt; outputs a BigInt,
 * with {@link parseU64}'s messages. Used by every schema that takes u64 input.
 *
 * @example
 * z.object({ minGasUnitPrice: u64Schema }).parse({ minGasUnitPrice: "150" }); // { minGasUnitPrice: 150n }
 */
export const u64Schema = z.unknown().transform((v, ctx) => {
  const r = parseU64(v);
  if (r.ok) return r.value;
  ctx.addIssue({ code: "custom", message: r.message });
  return z.NEVER;
});
