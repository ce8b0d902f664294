// The OpenAPI document as YAML, for `/spec.yaml`: a few lines of block style for plain JSON data
// (objects, arrays, strings, finite numbers, booleans, null), where a YAML library would add
// about 50 KB to every bundle of the handler for this one call.

/** Longest key written on its value's line (YAML's limit for such a key is 1,024 characters). */
const MAX_IMPLICIT_KEY = 1000;

/** Words a YAML reader takes for something other than a string when left unquoted. */
const RESERVED = /^(?:true|false|null|yes|no|on|off|y|n|~)$/i;

/**
 * A string as YAML: plain when it cannot be read as anything else (letters first, no `: ` or
 * ` #`, no leading or trailing space, no reserved word), else JSON-quoted, which YAML 1.2 reads
 * as the same string, with every character outside printable ASCII escaped so no reader sees a
 * line break or a byte order mark in it.
 */
function scalarText(s: string): string {
  if (/^[A-Za-z/][\w ./()<>`',-]*$/.test(s) && !s.endsWith(" ") && !RESERVED.test(s)) return s;
  return JSON.stringify(s).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

const isContainer = (v: unknown): v is object => typeof v === "object" && v !== null;
/** An object's fields as JSON has them (a field set to `undefined` is not written). */
const fields = (v: object) => Object.entries(v).filter(([, x]) => x !== undefined);
const isEmpty = (v: object) => (Array.isArray(v) ? v.length === 0 : fields(v).length === 0);

/** A value that fits on its key's line: a scalar, `[]` or `{}`. */
function inline(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return scalarText(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`${value} has no YAML text here`);
    return String(value);
  }
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return "[]";
  return "{}";
}

/** The lines of a non-empty object or array, indented by `pad`. */
function block(value: object, pad: string, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) {
      // In an array, `undefined` is written as JSON writes it: null.
      if (!isContainer(item) || isEmpty(item)) out.push(`${pad}- ${inline(item ?? null)}`);
      else if (Array.isArray(item)) {
        out.push(`${pad}-`);
        block(item, `${pad}  `, out);
      } else {
        // The item's first key goes on the dash's line, the rest under it.
        const start = out.length;
        block(item, `${pad}  `, out);
        out[start] = `${pad}- ${out[start]!.slice(pad.length + 2)}`;
      }
    }
    return;
  }
  for (const [key, v] of fields(value)) {
    const k = scalarText(key);
    // YAML reads a key written before its `:` on one line only up to 1,024 characters (a
    // `headerPrefix` of 1,100 made the document unreadable); a longer one is written as an
    // explicit key, `? key` then `: value` on the next line.
    const head = k.length > MAX_IMPLICIT_KEY ? `? ${k}\n${pad}:` : `${k}:`;
    if (!isContainer(v) || isEmpty(v)) out.push(`${pad}${head} ${inline(v)}`);
    else {
      out.push(`${pad}${head}`);
      block(v, `${pad}  `, out);
    }
  }
}

/**
 * `value` (JSON data whose top is an object) as a YAML document in block style, ending in a
 * newline: what `YAML.parse` reads back as the same data.
 *
 * @example
 * yamlText({ openapi: "3.1.0", tags: [{ name: "General" }] }); // 'openapi: "3.1.0"\ntags:\n  - name: General\n'
 */
export function yamlText(value: object): string {
  if (isEmpty(value)) return `${inline(value)}\n`;
  const out: string[] = [];
  block(value, "", out);
  return `${out.join("\n")}\n`;
}
