import { BaseError, ValidationError, type ValidationIssue } from "../../core/errors.js";

/** How a request to the node failed. */
export type RequestFailureKind = "network" | "timeout" | "http" | "too_large";

/**
 * A request to the node failed before a usable answer came back: the connection failed or
 * dropped (`network`), no full answer came within the timeout (`timeout`), the node answered
 * with a status the source does not expect there (`http`, e.g. 500, 503, 429, or a redirect
 * while `followRedirects` is off), or the body grew past `maxResponseBytes` (`too_large`,
 * with `limit`; counted after decompression).
 *
 * @example
 * if (event.type === "retrying" && event.error instanceof SourceRequestError) console.log(event.error.status);
 */
export class SourceRequestError extends BaseError {
  override name = "SourceRequestError";
  readonly url: string;
  readonly kind: RequestFailureKind;
  /** HTTP status, for `http` failures (and `too_large` ones). */
  readonly status: number | undefined;
  /** The byte cap that was exceeded, for `too_large` failures. */
  readonly limit: number | undefined;

  constructor(
    url: string,
    kind: RequestFailureKind,
    options: {
      status?: number;
      limit?: number;
      details?: string;
      cause?: unknown;
      /** The node's status and headers had come: the body is what failed (`network`, `timeout`). */
      answered?: boolean;
      /** Something answered, but not in HTTP the client can read (a bad status line, huge headers). */
      malformed?: boolean;
    } = {},
  ) {
    const what =
      kind === "http"
        ? `HTTP ${options.status} from ${url}`
        : kind === "timeout"
          ? options.answered
            ? `the answer from ${url} did not finish within the timeout`
            : `no answer from ${url} within the timeout`
          : kind === "too_large"
            ? `response from ${url} is larger than the cap of ${options.limit} bytes`
            : options.answered
              ? `the answer from ${url} broke off or could not be decoded`
              : options.malformed
                ? `the answer from ${url} is not HTTP the client can read`
                : `cannot reach ${url}`;
    super(what, { details: options.details, cause: options.cause });
    this.url = url;
    this.kind = kind;
    this.status = options.status;
    this.limit = options.limit;
  }
}

/**
 * The node answered, but the body is not JSON or does not fit the expected shape. `issues`
 * name every field path (e.g. `transactions[3].gas_unit_price`) and what is wrong with it.
 *
 * @example
 * // invalid response from http://127.0.0.1:8080/v1: chain_id: must be a chain id 0..255 as a JSON number (got "4")
 * console.error(error.message);
 */
export class InvalidResponseError extends ValidationError {
  override name = "InvalidResponseError";
  readonly url: string;

  constructor(url: string, issues: readonly ValidationIssue[]) {
    super(`invalid response from ${url}`, issues);
    this.url = url;
  }
}
