import { describeValue } from "../core/describeValue.js";
import { pick, responsePair } from "./responses.js";
import type { HandlerLogger, HandlerMetrics, HandlerResponse } from "./types.js";

/** An error answer of the handler (its chain-state headers when the snapshot can be read). */
type ErrorAnswer = (
  status: number,
  code: "internal_error",
  message: string,
  head: boolean,
) => HandlerResponse;

/**
 * The handler's metrics route: answer `GET`/`HEAD` with `metrics.scrape()`. Requests that arrive
 * while a scrape is being collected share it, as the metrics server's do: a client pipelining
 * thousands of `/metrics` requests costs one collection at a time, not one each, and cannot
 * starve the estimate. A scrape that throws before it returns a promise, rejects, or answers
 * something that is not a scrape is the documented 500 `internal_error` "collecting the metrics
 * failed", logged: its message never reaches the client.
 *
 * @example
 * const scrape = createScrape(metrics, logger, { "X-Content-Type-Options": "nosniff" }, error);
 * const res = await scrape(false);
 */
export function createScrape(
  metrics: HandlerMetrics,
  logger: Pick<HandlerLogger, "error">,
  headers: Readonly<Record<string, string>>,
  error: ErrorAnswer,
): (head: boolean) => Promise<HandlerResponse> {
  let collecting: Promise<unknown> | undefined;
  function collect(): Promise<unknown> {
    if (collecting !== undefined) return collecting;
    let p: Promise<unknown>;
    try {
      p = Promise.resolve(metrics.scrape());
    } catch (err) {
      return Promise.reject(err);
    }
    collecting = p;
    const done = () => {
      if (collecting === p) collecting = undefined;
    };
    p.then(done, done);
    return p;
  }
  const answerHeaders = { ...headers, "Cache-Control": "no-store" };

  return (head) =>
    collect()
      .then((result) => {
        const { contentType, body } = (result ?? {}) as { contentType?: unknown; body?: unknown };
        if (
          typeof contentType !== "string" ||
          !(typeof body === "string" || body instanceof Uint8Array)
        )
          throw new TypeError(
            `scrape() must resolve to { contentType: string, body: string | Uint8Array }, got ${describeValue(result)}`,
          );
        return pick(responsePair(200, answerHeaders, contentType, body), head);
      })
      .catch((err: unknown) => {
        logger.error({ err }, "collecting the metrics failed");
        return error(500, "internal_error", "collecting the metrics failed", head);
      });
}
