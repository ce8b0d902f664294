import { describeValue } from "../core/describeValue.js";
import { pick, type ResponsePair, responsePair } from "./responses.js";
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
 * starve the estimate; they share its answer's bytes too. A scrape that throws before it returns a promise, rejects, or answers
 * something that is not a scrape is the documented 500 `internal_error` "collecting the metrics
 * failed", logged once per collection: its message never reaches the client.
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
  const answerHeaders = { ...headers, "Cache-Control": "no-store" };
  let answering: Promise<ResponsePair> | undefined;
  /**
   * The answer to the scrape being collected, shared by every request that arrives meanwhile:
   * its body too, so a client that pipelines thousands of requests and never reads holds one
   * body, not one each (a framework's server queues every answer it is given).
   */
  function answer(): Promise<ResponsePair> {
    if (answering !== undefined) return answering;
    let collected: Promise<unknown>;
    try {
      collected = Promise.resolve(metrics.scrape());
    } catch (err) {
      collected = Promise.reject(err);
    }
    const a = collected.then((result) => {
      const { contentType, body } = checkScrape(result);
      return responsePair(200, answerHeaders, contentType, body);
    });
    answering = a;
    a.then(
      () => {
        if (answering === a) answering = undefined;
      },
      (err: unknown) => {
        if (answering === a) answering = undefined;
        logger.error({ err }, "collecting the metrics failed");
      },
    );
    return a;
  }

  return (head) =>
    answer().then(
      (pair) => pick(pair, head),
      () => error(500, "internal_error", "collecting the metrics failed", head),
    );
}

/**
 * What `scrape()` resolved to, checked: `{ contentType, body }` with a string type and a string
 * or byte body (the handler and the metrics server answer anything else 500).
 *
 * @throws {TypeError} naming what it got.
 * @example
 * checkScrape(await metrics.scrape()).body;
 */
export function checkScrape(result: unknown): {
  contentType: string;
  body: string | Uint8Array;
} {
  const { contentType, body } = (result ?? {}) as { contentType?: unknown; body?: unknown };
  if (typeof contentType !== "string" || !(typeof body === "string" || body instanceof Uint8Array))
    throw new TypeError(
      `scrape() must resolve to { contentType: string, body: string | Uint8Array }, got ${describeValue(result)}`,
    );
  return { contentType, body };
}
