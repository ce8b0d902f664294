import type { Observable } from "rxjs";
import type { BlockSample } from "../core/blockSample.js";
import { followChain } from "./aptosRest/followChain.js";
import { type AptosRestOptions, resolveAptosRestOptions } from "./aptosRest/options.js";
import { loopObservable } from "./loopObservable.js";

export { aptosRestEventFields } from "./aptosRest/aptosRestEventFields.js";
export { describeAptosRestEvent } from "./aptosRest/describeAptosRestEvent.js";
export type { RequestFailureKind } from "./aptosRest/errors.js";
export { InvalidResponseError, SourceRequestError } from "./aptosRest/errors.js";
export type {
  AptosRestEvent,
  AptosRestOptions,
  ResolvedAptosRestOptions,
} from "./aptosRest/options.js";
export { normaliseNodeUrl, resolveAptosRestOptions } from "./aptosRest/options.js";

/**
 * A source that follows a live node through its REST API. At subscription it reads the ledger
 * info (chain id, tip, oldest height), backfills the last `backfillBlocks` blocks (or starts at
 * `startHeight`), then polls the tip every `pollIntervalMs`. Blocks up to `lookaheadBlocks`
 * ahead are fetched with at most `concurrency` requests in flight (a request without headers
 * after `hedgeAfterMs` is sent once more) and emitted strictly in height order, each exactly
 * once, with their transaction lists completed through `/v1/transactions` when the node cut
 * them: a slow block delays its own emission, not the other fetches. The minimum gas unit price
 * comes from the gas schedule at the first block and at every epoch change.
 *
 * Faults never end the stream: network errors, timeouts, 5xx, 429, redirects (unless
 * `followRedirects`), bodies past `maxResponseBytes` (counted after decompression) and responses
 * that do not fit the API are retried forever (capped exponential backoff with jitter, longer if
 * `Retry-After` asks) and reported through `onEvent`; a height the node pruned (410) is skipped
 * up to its oldest block (`pruned_skip`). Each subscription follows the chain on its own (cold);
 * unsubscribing cancels its timers and requests in flight.
 *
 * @throws {InvalidConfigError} at call time when the URL or an option is invalid.
 * @example
 * import { createEngine, aip34 } from "gasdigest";
 * import { aptosRest } from "gasdigest/node";
 * const engine = createEngine({ strategy: aip34() });
 * engine.connect(aptosRest("https://fullnode.mainnet.aptoslabs.com/v1", {
 *   backfillBlocks: engine.config.aggressiveBlockHistory + 1,
 *   onEvent: (e) => logger.info(e, e.type),
 * }));
 */
export function aptosRest(url: string, options: AptosRestOptions = {}): Observable<BlockSample> {
  const resolved = resolveAptosRestOptions(url, options);
  return loopObservable<BlockSample>((subscriber, signal) =>
    followChain(resolved, (block) => subscriber.next(block), signal),
  );
}
