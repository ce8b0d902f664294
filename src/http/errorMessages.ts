// Messages of the answers that depend on the handler's options, shared by the routes that send
// them and the OpenAPI document that shows them as examples.

/** The messages of the estimate's 403 `api_disabled`, one per way an operator turns it off. */
export const REFUSALS = Object.freeze({
  /** `estimateEnabled: false`. */
  disabled: "the gas estimation endpoint is disabled on this server",
  /** `jsonOutput: false` and `bcsOutput: false`. */
  noFormat:
    "the gas estimation endpoint serves no output format on this server (JSON and BCS are both disabled)",
  /** `jsonOutput: false`, JSON negotiated. */
  jsonOff: "JSON output is disabled on this server; ask for application/x-bcs",
  /** `bcsOutput: false`, BCS negotiated. */
  bcsOff: "BCS output is disabled on this server; ask for application/json",
});

/** Which of {@link REFUSALS} the estimate answers under these options (`disabled` when none: the operator may turn it off). */
export function refusalsOf(o: {
  estimateEnabled: boolean;
  jsonOutput: boolean;
  bcsOutput: boolean;
}): (keyof typeof REFUSALS)[] {
  if (!o.estimateEnabled) return ["disabled"];
  if (!o.jsonOutput && !o.bcsOutput) return ["noFormat"];
  const off: (keyof typeof REFUSALS)[] = [];
  if (!o.jsonOutput) off.push("jsonOff");
  if (!o.bcsOutput) off.push("bcsOff");
  return off.length > 0 ? off : ["disabled"];
}

/** The 503 `health_check_failed` of the estimate and the health check past `maxStalenessMs`. */
export const staleMessage = (maxStalenessMs: number) =>
  `the newest block arrived more than ${maxStalenessMs} ms ago`;
