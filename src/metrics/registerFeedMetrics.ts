import { Counter, Gauge, type Registry } from "prom-client";
import { describeValue } from "../core/describeValue.js";
import { InvalidArgumentError } from "../core/errors.js";
import { openOptions, unknownFieldIssues } from "../core/readOptions.js";

/**
 * The state of a source or sink, one of:
 * - `starting`: nothing received yet, still within the staleness bound;
 * - `connected`: working (its last report was a success, or blocks keep coming);
 * - `retrying`: its last report was a failure (a retry is scheduled);
 * - `stale`: no failure reported, but the newest block is older than the staleness bound;
 * - `completed`: a source that ended (a file read to its end).
 */
export type FeedState = "starting" | "connected" | "retrying" | "stale" | "completed";

/** Every {@link FeedState}, in the order of the state gauge's samples. */
export const FEED_STATES: readonly FeedState[] = Object.freeze([
  "starting",
  "connected",
  "retrying",
  "stale",
  "completed",
]);

/** Event types (of aptosRest, redisStream, redisStreamSink) that report a working feed. */
const OK = new Set(["connected", "started", "recovered", "resumed", "warm_start", "caught_up"]);

/** What a tracked feed can tell about itself, read at scrape time. */
export interface FeedProbe {
  /** When the newest block arrived (ms), if any: arriving blocks prove the feed works. */
  newestBlockMs?: (() => number | undefined) | undefined;
  /** Whether the feed has ended for good (a file read to its end). */
  completed?: (() => boolean) | undefined;
}

/** What is known of one tracked feed. */
interface Feed {
  readonly probe: FeedProbe;
  /** When it was declared (ms): the staleness bound counts from here until a first block. */
  readonly since: number;
  /** Whether it ever reported a success. */
  reported: boolean;
  /** When its last failure was reported (ms), until a success or a newer block. */
  failedAt: number | undefined;
}

/** A feed's event listener: pass it as (or call it from) the feed's `onEvent`. */
export type FeedListener = (event: { readonly type: string }) => void;

/**
 * Register the metrics of the sources (`role` "source") or sinks ("sink") of a process:
 * `gasdigest_<role>_state{<role>,state}` (1 for the current {@link FeedState}, 0 for the others),
 * `gasdigest_<role>_retries_total{<role>}` (failed attempts, each followed by a retry),
 * `gasdigest_<role>_outages_total{<role>}` (the feed reported itself unreachable: several
 * failures in a row), `gasdigest_<role>_invalid_total{<role>}` (entries or lines skipped as
 * invalid). Returns `track(kind, probe)`, which declares a feed and returns its event listener.
 *
 * @example
 * const track = registerFeedMetrics(registry, "gasdigest_", "source", { now: Date.now, maxStalenessMs: 30_000 });
 * redisStream(url, { onEvent: track("redis", { newestBlockMs: () => engine.snapshot()?.receivedAtMs }) });
 */
export function registerFeedMetrics(
  registry: Registry,
  prefix: string,
  role: "source" | "sink",
  options: { now: () => number; maxStalenessMs: number | false },
): (kind: string, probe?: FeedProbe) => FeedListener {
  const { now, maxStalenessMs } = options;
  const registers = [registry];
  const feeds = new Map<string, Feed>();

  const count = (suffix: string, help: string) =>
    new Counter({ name: `${prefix}${role}_${suffix}`, help, labelNames: [role], registers });
  const retries = count(
    "retries_total",
    `Failed attempts of the ${role} to reach what it reads or writes, each followed by a retry with backoff.`,
  );
  const outages = count(
    "outages_total",
    `Times the ${role} reported itself unreachable (several failures in a row; once per outage).`,
  );
  const invalid = count(
    "invalid_total",
    `Entries or lines the ${role} skipped as invalid (a malformed stream entry, a bad NDJSON line).`,
  );

  function state(feed: Feed): FeedState {
    if (feed.probe.completed?.()) return "completed";
    const newest = feed.probe.newestBlockMs?.();
    // A failure is over once the feed reports a success, or a block arrives after it.
    if (feed.failedAt !== undefined && !(newest !== undefined && newest > feed.failedAt))
      return "retrying";
    const stale =
      role === "source" &&
      maxStalenessMs !== false &&
      now() - (newest ?? feed.since) > maxStalenessMs;
    if (stale) return "stale";
    return feed.reported || newest !== undefined ? "connected" : "starting";
  }

  new Gauge({
    name: `${prefix}${role}_state`,
    help: `State of each ${role}: 1 for the current one of starting, connected, retrying, stale (no block within the staleness bound), completed; 0 for the others.`,
    labelNames: [role, "state"],
    registers,
    collect() {
      this.reset();
      for (const [kind, feed] of feeds) {
        const current = state(feed);
        for (const s of FEED_STATES) this.set({ [role]: kind, state: s }, s === current ? 1 : 0);
      }
    },
  });

  return (kind, given) => {
    // The label of its series: `source()` without one made a source "undefined".
    if (typeof kind !== "string" || kind === "")
      throw new InvalidArgumentError([
        {
          path: "kind",
          message: `must be a non-empty string naming the ${role}, such as "${role === "source" ? "aptos" : "redis"}" (got ${describeValue(kind)})`,
        },
      ]);
    const probe = checkProbe(given);
    // One state series per kind: a second feed of it would overwrite the first one's state.
    if (feeds.has(kind))
      throw new InvalidArgumentError([
        {
          path: "kind",
          message: `a ${role} "${kind}" is declared already: give each ${role} its own kind, such as "${kind}-2"`,
        },
      ]);
    const feed: Feed = { probe, since: now(), reported: false, failedAt: undefined };
    feeds.set(kind, feed);
    const labels = { [role]: kind };
    for (const c of [retries, outages, invalid]) c.inc(labels, 0);
    return (event) => {
      const type = event.type;
      if (OK.has(type)) {
        feed.reported = true;
        feed.failedAt = undefined;
      } else if (type === "retrying" || type === "unreachable") {
        feed.failedAt = now();
        (type === "retrying" ? retries : outages).inc(labels);
      } else if (type === "rejected") invalid.inc(labels);
    };
  };
}

const PROBE_FIELDS = ["newestBlockMs", "completed"];

/**
 * A feed's probe, checked: an object of the two functions, each optional (`null` and
 * `undefined`: none). A misspelt one (`newestBlock`) in a plain object would replace the default
 * probe with one that sees no block, so it is refused; an instance of a class may hold fields
 * of its own (its methods are the probe's).
 */
function checkProbe(given: unknown): FeedProbe {
  const opened = openOptions(given, "probe");
  if (opened.issue) throw new InvalidArgumentError([opened.issue]);
  const proto = Object.getPrototypeOf(opened.value);
  const plain = proto === Object.prototype || proto === null;
  const issues = plain ? unknownFieldIssues(opened.value, PROBE_FIELDS, "probe") : [];
  for (const key of PROBE_FIELDS) {
    const f = opened.value[key];
    if (f !== undefined && typeof f !== "function")
      issues.push({
        path: `probe.${key}`,
        message: `must be a function (got ${describeValue(f)})`,
      });
  }
  if (issues.length > 0) throw new InvalidArgumentError(issues);
  return opened.value as FeedProbe;
}
