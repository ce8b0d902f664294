import type { Logger } from "pino";
import { shorten, thrownText } from "../core/describeValue.js";
import { BaseError } from "../core/errors.js";
import type { HandlerLogger } from "../http/types.js";

type Level = "error" | "warn" | "info" | "debug";

/** Options of {@link createLogLimiter}. */
export interface LogLimiterOptions {
  /** Lines of one message logged per window; the rest are counted. @default 10 */
  perWindow?: number;
  /** Length of a window, in ms: each ends with a summary of what it did not log. @default 10000 */
  windowMs?: number;
}

/**
 * A logger whose repeated messages are rate-limited; see {@link createLogLimiter}. `key` groups
 * lines whose text differs (one per event type, say) under one count; it defaults to the text.
 */
export interface LimitedLogger {
  error(fields: object, message: string, key?: string): void;
  warn(fields: object, message: string, key?: string): void;
  info(fields: object, message: string, key?: string): void;
  debug(fields: object, message: string, key?: string): void;
  /** Write the summaries of the current window now and stop the timer (idempotent). */
  stop(): void;
}

/** What the event loggers write to: a {@link LimitedLogger}, or a pino logger (which ignores `key`). */
export type LineLogger = Omit<LimitedLogger, "stop">;

interface Tally {
  level: Level;
  logged: number;
  suppressed: number;
  /** Fields of the last line not logged, as a sample. */
  last: object | undefined;
}

/**
 * Rate-limit a pino logger per message (or per `key`): in each window of `windowMs`, the first
 * `perWindow` lines of a message are written, the others only counted; when the window ends,
 * one line per message says how many were not written (`suppressed`), with the fields of the
 * last one (`last`). A file of random bytes then costs a few lines every ten seconds, not one
 * per line. The timer does not keep the process alive.
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
    for (const [key, t] of tallies) {
      if (t.suppressed > 0)
        writeLine(
          log,
          t.level,
          { suppressed: t.suppressed, windowMs, last: t.last },
          `${key}: ${t.suppressed} more not logged in the last ${windowMs / 1000} s`,
        );
    }
    tallies.clear();
  }

  function write(level: Level, fields: object, message: string, key = message) {
    if (!log.isLevelEnabled(level)) return;
    let t = tallies.get(key);
    if (!t) {
      t = { level, logged: 0, suppressed: 0, last: undefined };
      tallies.set(key, t);
      if (!timer) {
        timer = setInterval(summarise, windowMs);
        timer.unref();
      }
    }
    if (t.logged < perWindow) {
      t.logged++;
      writeLine(log, level, fields, message);
    } else {
      t.suppressed++;
      t.last = fields;
    }
  }

  return {
    error: (fields, message, key) => write("error", fields, message, key),
    warn: (fields, message, key) => write("warn", fields, message, key),
    info: (fields, message, key) => write("info", fields, message, key),
    debug: (fields, message, key) => write("debug", fields, message, key),
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      summarise();
    },
  };
}

/**
 * Write one line. pino reads the fields while it writes it (an error's `cause` chain, every
 * enumerable property): a value whose getters or proxy traps throw (a strategy that threw a
 * revoked proxy) makes it throw here, and from an engine event's subscriber that ended the
 * process. The line is then written with its plain fields (an error as its `shortMessage`),
 * and says why.
 */
function writeLine(log: Logger, level: Level, fields: object, message: string): void {
  try {
    log[level](fields, message);
  } catch (error) {
    try {
      // A gasdigest error keeps its one-line message; other objects are left out.
      const plain = Object.entries(fields).flatMap(([k, v]) =>
        typeof v !== "object" || v === null
          ? [[k, v]]
          : v instanceof BaseError
            ? [[k, v.shortMessage]]
            : [],
      );
      log[level]({ ...Object.fromEntries(plain), unloggable: shorten(thrownText(error)) }, message);
    } catch {
      // the line is lost; the caller goes on
    }
  }
}

/**
 * The logger a server is given: its warnings and errors (a strategy failing on every request's
 * block, connection floods, failed scrapes) go through `limited`, keyed by message; its info and
 * debug lines (`--log-level debug` logs every request) are written as they come.
 *
 * @example
 * createServer(engine, { logger: serverLogger(log, createLogLimiter(log)) });
 */
export function serverLogger(log: Logger, limited: LineLogger): HandlerLogger {
  return {
    error: (fields, message = "error") => limited.error(fields, message),
    warn: (fields, message = "warning") => limited.warn(fields, message),
    info: (fields, message) => log.info(fields, message),
    debug: (fields, message) => log.debug(fields, message),
    isLevelEnabled: (level) => log.isLevelEnabled(level),
  };
}
