/** The two body formats of the estimate. */
export type EstimateFormat = "json" | "bcs";

const JSON_TYPE = "application/json";
const BCS_TYPE = "application/x-bcs";

/**
 * Pick the estimate's format from an `Accept` header: of the entries naming
 * `application/json` or `application/x-bcs` with q > 0, the highest q wins, ties going to the
 * one listed first. Anything else (absent, `*\/*`, `text/html`, malformed) gets JSON; never 406.
 *
 * @example
 * negotiateFormat("application/json;q=0.5, application/x-bcs"); // "bcs"
 * negotiateFormat("text/html,*\/*;q=0.8"); // "json"
 */
export function negotiateFormat(accept: string | readonly string[] | undefined): EstimateFormat {
  // Anything but a string or a list of them (a caller's own headers object) reads as no Accept.
  if (typeof accept !== "string" && !Array.isArray(accept)) return "json";
  const list = typeof accept === "string" ? accept : accept.join(",");
  if (!/x-bcs/i.test(list)) return "json";
  let best: EstimateFormat = "json";
  let bestQ = -1;
  for (const entry of splitOutsideQuotes(list, ",")) {
    const semi = entry.indexOf(";");
    const type = (semi === -1 ? entry : entry.slice(0, semi)).trim().toLowerCase();
    const format = type === JSON_TYPE ? "json" : type === BCS_TYPE ? "bcs" : undefined;
    if (format === undefined) continue;
    const q = semi === -1 ? 1 : qValue(entry.slice(semi + 1));
    if (q > bestQ && q > 0) {
      best = format;
      bestQ = q;
    }
  }
  return best;
}

/** A weight as RFC 9110 §12.4.2 writes it: 0 to 1 with at most three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The `q` parameter of a media range's parameters (`q=0.5;level=1`); 1 when absent or
 * malformed (`q=`, `q=2`, `q=0x1` and `q=.5` included).
 */
function qValue(params: string): number {
  for (const param of splitOutsideQuotes(params, ";")) {
    const eq = param.indexOf("=");
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== "q") continue;
    const text = param.slice(eq + 1).trim();
    return QVALUE.test(text) ? Number(text) : 1;
  }
  return 1;
}

/**
 * `text` split at each `separator` that is not inside a quoted string (RFC 9110 §5.6.4: a
 * parameter value may be quoted and hold `,` and `;`, a backslash escaping the next character),
 * so `a;p="x,y", b` is two entries, not three.
 *
 * @example
 * splitOutsideQuotes('text/html;p="a,b", application/json', ","); // ['text/html;p="a,b"', " application/json"]
 */
function splitOutsideQuotes(text: string, separator: string): string[] {
  if (!text.includes('"')) return text.split(separator);
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === "\\") i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && c === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
