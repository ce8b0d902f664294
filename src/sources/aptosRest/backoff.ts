/** Settings of {@link backoffDelay}. */
export interface BackoffOptions {
  /** Delay before the first retry, in ms. */
  readonly initialBackoffMs: number;
  /** Longest delay between two attempts, in ms. */
  readonly maxBackoffMs: number;
  /** Uniform random number in [0, 1), for the jitter. */
  readonly random: () => number;
}

/**
 * Delay before retry number `attempt` (1 = first retry): exponential growth from
 * `initialBackoffMs`, capped at `maxBackoffMs`, with "equal jitter" (half fixed, half random),
 * so many clients do not retry in lockstep and a retry never comes at once.
 *
 * @example
 * backoffDelay(3, { initialBackoffMs: 100, maxBackoffMs: 10_000, random: () => 0.5 }); // 300
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const ceiling = Math.min(options.maxBackoffMs, options.initialBackoffMs * 2 ** exponent);
  const r = Math.min(Math.max(options.random(), 0), 1);
  return Math.round(ceiling / 2 + (r * ceiling) / 2);
}

const SECONDS = /^\s*(\d+)\s*$/;
const DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const TIME = "\\d{2}:\\d{2}:\\d{2}";
/**
 * The three forms of an HTTP date (RFC 9110, 5.6.7): IMF-fixdate (`Sun, 06 Nov 1994 08:49:37
 * GMT`), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6
 * 08:49:37 1994`). Anything else is not a date, whatever `Date.parse` would make of it (it reads
 * `junk 2099` as the year 2099).
 */
const HTTP_DATE = new RegExp(
  `^\\s*(?:${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT|(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \\d{2}-${MONTH}-\\d{2} ${TIME} GMT|${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4})\\s*$`,
);

/**
 * The wait a `Retry-After` header asks for, in ms: either delay-seconds (`"120"`) or an HTTP
 * date (`"Wed, 21 Oct 2015 07:28:00 GMT"`, measured from `nowMs`; a past date means 0).
 * `undefined` when the header is absent or unreadable.
 *
 * @example
 * parseRetryAfter("2", Date.now()); // 2000
 */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number,
): number | undefined {
  if (value == null) return undefined;
  const seconds = SECONDS.exec(value);
  if (seconds) return Number(seconds[1]) * 1000;
  if (!HTTP_DATE.test(value)) return undefined;
  // Date.parse reads asctime as local time: it names no zone, and HTTP dates are GMT.
  const at = Date.parse(/GMT\s*$/.test(value) ? value : `${value.trim()} GMT`);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
