import { describeValue } from "../../core/describeValue.js";

/**
 * Longest Move identifier (module or function name) an entry function may carry. Aptos refuses
 * identifiers over 255 bytes in modules published since that limit was switched on, but over
 * 65,535 (Move's legacy bound) only before; a transaction may still call a module published
 * then, and a block refused for it would stall the source for good, so the bound is the legacy
 * one. It keeps a pattern from running over megabytes; the memory a name holds is bounded by
 * copying what is kept (see normaliseAddress).
 */
export const MAX_IDENTIFIER_LENGTH = 65_535;

/** An address of 1 to 64 hex digits, then two identifiers of at most 65,535 characters. */
const ENTRY_FUNCTION = new RegExp(
  `^(0x[0-9a-fA-F]{1,64})::[A-Za-z_][A-Za-z0-9_]{0,${MAX_IDENTIFIER_LENGTH - 1}}::[A-Za-z_][A-Za-z0-9_]{0,${MAX_IDENTIFIER_LENGTH - 1}}$`,
);
/** Longest `function` value that can match {@link ENTRY_FUNCTION}. */
const MAX_FUNCTION_LENGTH = 66 + 2 + MAX_IDENTIFIER_LENGTH + 2 + MAX_IDENTIFIER_LENGTH;

/** What {@link contractOf} found: the normalised address called, or why there is none. */
export type EntryFunctionAddress = { ok: true; address: string } | { ok: false; message: string };

/**
 * `0x0001` and `0x1` are the same account: lower case, no leading zeros. The result is built
 * from the number, so it is a string of its own: a slice of the answer's text would keep the
 * whole text (megabytes) alive for as long as the address is held.
 *
 * @example
 * normaliseAddress("0x0001"); // "0x1"
 */
export function normaliseAddress(address: string): string {
  return `0x${BigInt(address).toString(16)}`;
}

/**
 * Whether a normalised address is one of the framework's special addresses, `0x0` to `0xf`
 * (AIP-40): the node's use-case-aware shuffler counts calls to their modules as the platform's
 * use case (`0x1::aptos_account::transfer`, `0x3::token::...`), not as a contract's, and so does
 * its gas estimation's majority rule.
 *
 * @example
 * isSpecialAddress("0x1"); // true
 * isSpecialAddress("0x10"); // false
 */
export function isSpecialAddress(normalised: string): boolean {
  return normalised.length === 3;
}

/**
 * The contract address an entry function's `function` (`"0x1::coin::transfer"`) calls,
 * normalised. A value that is not a string of that shape, or whose module or function name is
 * longer than {@link MAX_IDENTIFIER_LENGTH}, is refused without running a pattern over it.
 *
 * @example
 * contractOf("0x0001::coin::transfer"); // { ok: true, address: "0x1" }
 */
export function contractOf(fn: unknown): EntryFunctionAddress {
  if (typeof fn === "string" && fn.length > MAX_FUNCTION_LENGTH)
    return {
      ok: false,
      message: `must be an entry function "<address>::<module>::<function>" with names of at most ${MAX_IDENTIFIER_LENGTH} characters (got ${describeValue(fn)})`,
    };
  const match = typeof fn === "string" ? ENTRY_FUNCTION.exec(fn) : null;
  if (!match)
    return {
      ok: false,
      message: `must be an entry function "<address>::<module>::<function>" (got ${describeValue(fn)})`,
    };
  return { ok: true, address: normaliseAddress(match[1]!) };
}
