import type { Logger } from "pino";

type Level = "error" | "warn" | "info" | "debug";

/** Options of {@link createLogLimiter}. */
export interface LogLimiterOptions {
  /** Lines of one message logged per window; the rest are counted. @default 10 */
  perWindow?: number;
  /** Length of a window, in ms: each ends with a summary of what it did not log. @default 10000 */
  windowMs?: number;
}

/** A logger whose repeated messages are rate-limited; see {@link createLogLimiter}. */
export interface LimitedLogger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
  debug(fields: object, message: string): void;
  /** Write the summaries of the current window now and stop the timer (idempotent). */
  stop(): void;
}

interface Tally {
  level: Level;
  logged: number;
  suppressed: number;
  /** Fields of the last line not logged, as a sample. */
  last: object | undefined;
}

/**
 * Rate-limit a pino logger per message: in each window of `windowMs`, the first `perWindow`
 * lines of a message are written, the others only counted; when the window ends, one line per
 * message says how many were not written (`suppressed`), with the fields of the last one
 * (`last`). A file of random bytes then costs a few lines every ten seconds, not one per line.
 * The timer does not keep the process alive.
 *
 * @example
 * const limited = createLogLimiter(pino());
 * limited.warn({ line: 7 }, "bad line skipped"); // written, or counted once 10 were this window
 * limited.stop();
 */
export function createLogLimiter(log: Logger, options: LogLimiterOptions = {}): LimitedLogger {
  const perWindow = options.perWindow ?? 10;
  const windowMs = options.windowMs ?? 10_000;
  const tallies = new Map<string, Tally>();
  let timer: NodeJS.Timeout | undefined;

  function summarise() {
    for (const [message, t] of tallies) {
      if (t.suppressed > 0)
        log[t.level](
          { suppressed: t.suppressed, windowMs, last: t.last },
          `${message}: ${t.suppressed} more not logged in the last ${windowMs / 1000} s`,
        );
    }
    tallies.clear();
  }

  function write(level: Level, fields: object, message: string) {
    if (!log.isLevelEnabled(level)) return;
    let t = tallies.get(message);
    if (!t) {
      t = { level, logged: 0, suppressed: 0, last: undefined };
      tallies.set(message, t);
      if (!timer) {
        timer = setInterval(summarise, windowMs);
        timer.unref();
      }
    }
    if (t.logged < perWindow) {
      t.logged++;
      log[level](fields, message);
    } else {
      t.suppressed++;
      t.last = fields;
    }
  }

  return {
    error: (fields, message) => write("error", fields, message),
    warn: (fields, message) => write("warn", fields, message),
    info: (fields, message) => write("info", fields, message),
    debug: (fields, message) => write("debug", fields, message),
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      summarise();
    },
  };
}
