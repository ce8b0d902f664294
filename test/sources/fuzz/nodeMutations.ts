import fc from "fast-check";
import type { Fault, Route } from "../fakeNode.js";

/**
 * A bad JSON value as raw text (so it can be nested 100,000 deep or be a huge array without
 * building it), and whether it is a JSON string (a string is a valid transaction `type`).
 */
interface BadValue {
  readonly text: string;
  readonly isString: boolean;
}

const str = (s: string): BadValue => ({ text: JSON.stringify(s), isString: true });
const raw = (text: string): BadValue => ({ text, isString: false });

/**
 * Values that no field the source reads accepts: not a u64 string (non-digits, more than 20
 * digits, signs, exponents), not a chain id (numbers outside 0..255 or fractions), not an array
 * of transactions, not an object. Huge digit strings, huge arrays and deep nesting included.
 */
const badValue: fc.Arbitrary<BadValue> = fc.oneof(
  fc.constantFrom(
    raw("null"),
    raw("true"),
    raw("{}"),
    raw("1.5"),
    raw("-1"),
    raw("256"),
    raw("1e400"),
    str(""),
    str("-1"),
    str("1e2"),
    str("100.0"),
    str("-0"),
    str("0x10"),
    str(" 1"),
    str("1 "),
    str("+5"),
    str("18446744073709551616"),
    str("١٢٣"),
  ),
  fc.integer({ min: 21, max: 100_000 }).map((n) => str("9".repeat(n))),
  fc.integer({ min: 256 }).map((n) => raw(String(n))),
  fc
    .string({ maxLength: 40 })
    .filter((s) => !/^[0-9]+$/.test(s))
    .map(str),
  fc.integer({ min: 1, max: 100_000 }).map((d) => raw(`${"[".repeat(d)}${"]".repeat(d)}`)),
  fc.integer({ min: 1, max: 50_000 }).map((n) => raw(`[${"0,".repeat(n)}0]`)),
  fc.integer({ min: 1, max: 20_000 }).map((n) => raw(`[${'{"type":1},'.repeat(n)}{}]`)),
);

/** What happens to one answer. */
export type Mutation =
  /** A required field (picked by `pick`) gets `value`. */
  | { kind: "field"; pick: number; value: BadValue }
  /** A required field is removed. */
  | { kind: "delete"; pick: number }
  /** The body is cut at `at` (share of its length). */
  | { kind: "cut"; at: number }
  /** The body is random bytes. */
  | { kind: "bytes"; data: Uint8Array }
  /** A transaction is removed or repeated (a version gap). */
  | { kind: "gap"; pick: number; repeat: boolean }
  /** Valid noise: unknown fields, pretty-printing. Must change nothing. */
  | { kind: "noise"; extra: unknown; pretty: boolean }
  /** Another status, a body of text, maybe a Retry-After. */
  | { kind: "status"; status: number; body: string; retryAfter: string | undefined }
  /** A Content-Encoding the body does not have. */
  | { kind: "encoding"; encoding: string }
  /** One of the fake node's own faults (huge bodies, gzip bombs, redirects, stalls, resets). */
  | { kind: "fault"; fault: Fault };

/** A mutation aimed at the next request of `route`. */
export interface Aimed {
  readonly route: Route;
  readonly mutation: Mutation;
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant("field"), pick: fc.nat(), value: badValue }),
    weight: 4,
  },
  fc.record({ kind: fc.constant("delete"), pick: fc.nat() }),
  fc.record({ kind: fc.constant("cut"), at: fc.double({ min: 0, max: 0.999, noNaN: true }) }),
  fc.record({ kind: fc.constant("bytes"), data: fc.uint8Array({ maxLength: 2048 }) }),
  fc.record({ kind: fc.constant("gap"), pick: fc.nat(), repeat: fc.boolean() }),
  fc.record({
    kind: fc.constant("noise"),
    extra: fc.jsonValue({ maxDepth: 3 }),
    pretty: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("status"),
    status: fc.constantFrom(301, 302, 400, 401, 403, 404, 410, 418, 429, 500, 502, 503, 504),
    body: fc.string({ maxLength: 200 }),
    retryAfter: fc.option(
      fc.oneof(
        fc.constantFrom("0", "1", "-1", "999999999999999999999", "Wed, 21 Oct 2015 07:28:00 GMT"),
        fc.stringMatching(/^[\x20-\x7e]{0,30}$/),
      ),
      { nil: undefined },
    ),
  }),
  fc.record({
    kind: fc.constant("encoding"),
    encoding: fc.constantFrom("gzip", "deflate", "br", "gzip, gzip", "x-unknown"),
  }),
  fc.record({
    kind: fc.constant("fault"),
    fault: fc.oneof(
      fc.constant<Fault>({ kind: "drop" }),
      fc.constant<Fault>({ kind: "truncate" }),
      fc.constant<Fault>({ kind: "stall" }),
      fc.integer({ min: 0, max: 300 }).map((ms): Fault => ({ kind: "stall", ms })),
      fc.integer({ min: 300_000, max: 3_000_000 }).map((bytes): Fault => ({ kind: "huge", bytes })),
      fc.constant<Fault>({ kind: "huge", bytes: 64 * 1024 * 1024, gzip: true }),
      fc.webUrl().map((location): Fault => ({ kind: "redirect", location })),
    ),
  }),
);

/** 1 to 6 mutations, each aimed at the next request of a route. */
export const mutations: fc.Arbitrary<Aimed[]> = fc.array(
  fc.record({
    route: fc.constantFrom<Route>("ledger", "block", "block", "transactions", "gas"),
    mutation,
  }),
  { minLength: 1, maxLength: 6 },
);

type Path = readonly (string | number)[];

/** Paths of the fields of an answer that the source needs. */
function requiredFields(route: Route, body: unknown): Path[] {
  const u64 = (...path: Path) => path;
  const txnFields = (t: { type?: unknown }, prefix: Path) => {
    const out = [u64(...prefix, "version"), u64(...prefix, "type")];
    if (t.type === "block_metadata_transaction") out.push(u64(...prefix, "epoch"));
    if (t.type === "user_transaction")
      out.push(
        u64(...prefix, "gas_unit_price"),
        u64(...prefix, "gas_used"),
        u64(...prefix, "payload"),
      );
    return out;
  };
  if (route === "ledger")
    return [
      "chain_id",
      "epoch",
      "ledger_version",
      "oldest_ledger_version",
      "ledger_timestamp",
      "block_height",
      "oldest_block_height",
    ].map((k) => u64(k));
  if (route === "block") {
    const b = body as { transactions?: { type?: unknown }[] };
    return [
      ...["block_height", "block_hash", "block_timestamp", "first_version", "last_version"].map(
        (k) => u64(k),
      ),
      u64("transactions"),
      ...(b.transactions ?? []).flatMap((t, i) => txnFields(t, ["transactions", i])),
    ];
  }
  if (route === "transactions")
    return Array.isArray(body) ? body.flatMap((t, i) => txnFields(t, [i])) : [];
  if (route === "gas") {
    const entries = (body as { data?: { entries?: { key: string }[] } }).data?.entries ?? [];
    const min = entries.findIndex((e) => e.key === "txn.min_price_per_gas_unit");
    const max = entries.findIndex((e) => e.key === "txn.max_price_per_gas_unit");
    return [
      u64("data"),
      u64("data", "feature_version"),
      u64("data", "entries"),
      u64("data", "entries", min, "val"),
      ...(max === -1 ? [] : [u64("data", "entries", max, "val")]),
    ];
  }
  return [];
}

const MARK = "\u0000mark\u0000";

function setAt(body: unknown, path: Path, value: unknown): void {
  let at = body as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path.at(-1)!] = value;
}

function deleteAt(body: unknown, path: Path): void {
  let at = body as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  delete at[path.at(-1)!];
}

/** The fake node's `respond` for a mutation: what to send instead of the right answer. */
export function applyMutation(
  route: Route,
  m: Exclude<Mutation, { kind: "fault" }>,
  right: { status: number; body: unknown },
): { status: number; headers?: Record<string, string>; body: string | Buffer } {
  const body = structuredClone(right.body);
  const text = () => JSON.stringify(body);
  const fields = right.status === 200 ? requiredFields(route, body) : [];
  switch (m.kind) {
    case "field": {
      if (fields.length === 0) return { status: right.status, body: text() };
      const path = fields[m.pick % fields.length]!;
      // Any string is a valid transaction type (unknown ones are skipped): none goes there.
      const value = m.value.isString && path.at(-1) === "type" ? raw("null") : m.value;
      setAt(body, path, MARK);
      return { status: right.status, body: text().replace(JSON.stringify(MARK), value.text) };
    }
    case "delete": {
      if (fields.length > 0) deleteAt(body, fields[m.pick % fields.length]!);
      return { status: right.status, body: text() };
    }
    case "cut": {
      const t = text();
      return { status: right.status, body: t.slice(0, Math.floor(m.at * t.length)) };
    }
    case "bytes":
      return { status: right.status, body: Buffer.from(m.data) };
    case "gap": {
      const list = route === "block" ? (body as { transactions?: unknown[] }).transactions : body;
      if (Array.isArray(list) && list.length > 0) {
        const i = m.pick % list.length;
        if (m.repeat) list.splice(i, 0, list[i]);
        else list.splice(i, 1);
      }
      return { status: right.status, body: text() };
    }
    case "noise": {
      if (body && typeof body === "object" && !Array.isArray(body))
        (body as Record<string, unknown>).zz_unknown_field = m.extra;
      if (Array.isArray(body))
        for (const t of body)
          if (t && typeof t === "object") (t as Record<string, unknown>).zz_extra = m.extra;
      return { status: right.status, body: JSON.stringify(body, null, m.pretty ? 2 : undefined) };
    }
    case "status": {
      const headers: Record<string, string> = {};
      if (m.retryAfter !== undefined) headers["retry-after"] = m.retryAfter;
      return { status: m.status, headers, body: m.body };
    }
    case "encoding":
      return { status: right.status, headers: { "content-encoding": m.encoding }, body: text() };
  }
}

/**
 * Whether a mutation may make the source take a different but valid answer, so that its blocks
 * rightly differ from the chain's: a 400/404/410 on a gas schedule read at a version makes the
 * source fall back to the latest schedule (documented behaviour). Such mutations are left out.
 */
export function changesMeaning(a: Aimed): boolean {
  return (
    a.route === "gas" && a.mutation.kind === "status" && [400, 404, 410].includes(a.mutation.status)
  );
}

/** The fault to inject for an aimed mutation. */
export function toFault(a: Aimed): Fault {
  const m = a.mutation;
  if (m.kind === "fault") return m.fault;
  return { kind: "replace", respond: (right) => applyMutation(a.route, m, right) };
}
