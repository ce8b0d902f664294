/** A fault the fake node can answer a request with instead of the right answer. */
export type Fault =
  | { kind: "status"; status: number }
  | { kind: "rate_limit"; retryAfter?: string }
  /**
   * Never answer (the client must time out); the socket is closed when the client gives up.
   * With `ms`, answer normally after that long instead (a straggler).
   */
  | { kind: "stall"; ms?: number }
  /** Send the headers, then the right body one byte every `everyMs` (100). */
  | { kind: "trickle"; everyMs?: number }
  /** Destroy the connection before answering. */
  | { kind: "drop" }
  /** Send the headers and half the body, then destroy the connection. */
  | { kind: "truncate" }
  /** 200 with a body that is not JSON. */
  | { kind: "malformed" }
  /** 200 with JSON in which one field has the wrong type. */
  | { kind: "wrong_type" }
  /**
   * 200 with a body of `bytes` bytes (generated as it is sent), or with `gzip` a gzip bomb that
   * inflates to `bytes`; `declareLength` sends its Content-Length.
   */
  | { kind: "huge"; bytes: number; gzip?: boolean; declareLength?: boolean }
  /** A redirect (302 unless `status`) to `location`. */
  | { kind: "redirect"; location: string; status?: number }
  /**
   * Whatever `respond` makes of the right answer (status and JSON body): status, extra headers
   * and the bytes to send. For fuzzing.
   */
  | {
      kind: "replace";
      respond: (right: { status: number; body: unknown }) => {
        status: number;
        headers?: Record<string, string>;
        body: string | Buffer;
      };
    };

export type FaultKind = Fault["kind"];

/** The faults of the fake node's `storm()` by default. */
export const STORM_FAULTS: readonly Fault[] = [
  { kind: "status", status: 500 },
  { kind: "status", status: 503 },
  { kind: "rate_limit", retryAfter: "0" },
  { kind: "rate_limit" },
  { kind: "stall" },
  { kind: "drop" },
  { kind: "truncate" },
  { kind: "malformed" },
  { kind: "wrong_type" },
];

/** Storm faults that answer at once: a stall would cost the source's 10 s request timeout. */
export const QUICK_FAULTS: readonly Fault[] = STORM_FAULTS.filter(
  (f) => f.kind !== "stall" && !(f.kind === "rate_limit" && f.retryAfter === undefined),
);
