// A strict reader of the Prometheus text exposition format 0.0.4 for the tests: every line is a
// comment (HELP, TYPE or other), a sample, or empty; HELP and TYPE come before their family's
// samples, once each; every sample belongs to a declared family (histograms: _bucket, _sum,
// _count); no series appears twice; histogram buckets are cumulative and end with +Inf = _count.
// It throws on the first violation, naming the line.

export interface Family {
  readonly name: string;
  help: string | undefined;
  type: string | undefined;
  readonly samples: Sample[];
}

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = `([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`;
const SAMPLE = new RegExp(`^(${NAME})(\\{(?:${LABEL}(?:,${LABEL})*,?)?\\})? (\\S+)( -?\\d+)?$`);
const LABELS = new RegExp(LABEL, "g");
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

/** A sample value as Prometheus reads it (Go's ParseFloat: NaN and Inf in any case). */
function number(text: string): number {
  const lower = text.toLowerCase();
  if (lower === "+inf" || lower === "inf") return Number.POSITIVE_INFINITY;
  if (lower === "-inf") return Number.NEGATIVE_INFINITY;
  if (lower === "nan") return Number.NaN;
  const n = Number(text);
  if (text.trim() === "" || Number.isNaN(n)) throw new Error(`not a number: "${text}"`);
  return n;
}

/** The family a sample name belongs to, given the declared families. */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const exact = families.get(name);
  if (exact !== undefined) return exact;
  for (const suffix of ["_bucket", "_sum", "_count"])
    if (name.endsWith(suffix)) {
      const f = families.get(name.slice(0, -suffix.length));
      if (f !== undefined && (f.type === "histogram" || f.type === "summary")) return f;
    }
  return undefined;
}

/** Parse an exposition into its families (by name), or throw naming the first bad line. */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const series = new Set<string>();
  const declare = (name: string, n: number) => {
    let f = families.get(name);
    if (f === undefined) {
      f = { name, help: undefined, type: undefined, samples: [] };
      families.set(name, f);
    } else if (f.samples.length > 0) throw new Error(`line ${n}: ${name} declared after samples`);
    return f;
  };
  const lines = text.split("\n");
  if (lines.at(-1) !== "") throw new Error("the exposition must end with a line feed");
  lines.forEach((line, i) => {
    const n = i + 1;
    if (line === "") return;
    if (line.startsWith("#")) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (m === null) return; // a plain comment
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!new RegExp(`^${NAME}$`).test(name)) throw new Error(`line ${n}: bad name "${name}"`);
      const f = declare(name, n);
      if (kind === "HELP") {
        if (f.help !== undefined) throw new Error(`line ${n}: second HELP for ${name}`);
        f.help = rest;
      } else {
        if (f.type !== undefined) throw new Error(`line ${n}: second TYPE for ${name}`);
        if (!TYPES.has(rest)) throw new Error(`line ${n}: unknown type "${rest}"`);
        f.type = rest;
      }
      return;
    }
    const m = SAMPLE.exec(line);
    if (m === null) throw new Error(`line ${n}: not a sample: ${line}`);
    const name = m[1]!;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (m[2] ?? "").matchAll(LABELS)) {
      if (key! in labels) throw new Error(`line ${n}: label ${key} twice`);
      labels[key!] = value!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    }
    let value: number;
    try {
      value = number(m[m.length - 2]!);
    } catch (e) {
      throw new Error(`line ${n}: ${(e as Error).message}`);
    }
    const f = familyOf(name, families);
    if (f === undefined || f.type === undefined)
      throw new Error(`line ${n}: sample ${name} of no declared family`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (series.has(key)) throw new Error(`line ${n}: series ${key} twice`);
    series.add(key);
    if (f.type === "counter" && !(value >= 0)) throw new Error(`line ${n}: negative counter`);
    f.samples.push({ name, labels, value });
  });
  for (const f of families.values()) if (f.type === "histogram") checkHistogram(f);
  return families;
}

/** Buckets cumulative per series, ending with +Inf equal to _count. */
function checkHistogram(f: Family) {
  const groups = new Map<string, Sample[]>();
  const counts = new Map<string, number>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    if (s.name === `${f.name}_bucket`) {
      if (le === undefined) throw new Error(`${f.name}: a bucket without le`);
      groups.set(key, [...(groups.get(key) ?? []), s]);
    } else if (s.name === `${f.name}_count`) counts.set(key, s.value);
  }
  for (const [key, buckets] of groups) {
    let last = -1;
    let bound = Number.NEGATIVE_INFINITY;
    for (const b of buckets) {
      const le = number(b.labels.le!);
      if (!(le > bound)) throw new Error(`${f.name}${key}: bucket bounds not increasing`);
      if (b.value < last) throw new Error(`${f.name}${key}: buckets not cumulative`);
      bound = le;
      last = b.value;
    }
    if (bound !== Number.POSITIVE_INFINITY) throw new Error(`${f.name}${key}: no +Inf bucket`);
    if (counts.get(key) !== last) throw new Error(`${f.name}${key}: +Inf bucket is not _count`);
  }
}

/** The value of the one sample of `family` whose labels include `labels`, or undefined. */
export function sampleValue(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const family = familyOf(name, families);
  const found = family?.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found === undefined || found.length === 0) return undefined;
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches several`);
  return found[0]!.value;
}
