import type { HandlerLogger } from "./types.js";

const LEVELS = ["error", "warn", "info", "debug"] as const;

/**
 * `logger` made unable to throw: each method calls the original and ignores what it throws, so
 * a broken logger (a transport that fails, a serializer that trips over an odd error object)
 * never turns an answer into an exception, a stack trace on the wire or a crashed server. Only
 * the log line is lost. `isLevelEnabled`, when the logger has it, answers `true` if it throws.
 *
 * @example
 * const logger = safeLogger(options.logger ?? silentLogger);
 * logger.error({ err }, "request failed"); // never throws
 */
export function safeLogger(logger: HandlerLogger): HandlerLogger {
  const wrapped: HandlerLogger = {
    error: () => {},
    warn: () => {},
    info: () => {},
    debug: () => {},
  };
  for (const level of LEVELS)
    wrapped[level] = (obj, msg) => {
      try {
        // With the arguments the caller gave (a logger may tell one from two).
        if (msg === undefined) logger[level](obj);
        else logger[level](obj, msg);
      } catch {
        // the log line is lost; the caller goes on (see above)
      }
    };
  const isLevelEnabled = logger.isLevelEnabled;
  if (typeof isLevelEnabled === "function")
    wrapped.isLevelEnabled = (level) => {
      try {
        return isLevelEnabled.call(logger, level) !== false;
      } catch {
        return true;
      }
    };
  return Object.freeze(wrapped);
}
