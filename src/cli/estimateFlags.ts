import type { HandlerOptions } from "../http/handlerOptions.js";
import { UsageError } from "./io.js";

/**
 * The handler options of `--bcs-layout`, `--formats` and `--estimate-disabled`.
 *
 * @throws {UsageError} naming the flag and what it takes.
 */
export function estimateFlags(
  layout: string | undefined,
  formats: string | undefined,
  disabled: boolean | undefined,
): Pick<HandlerOptions, "bcsLayout" | "jsonOutput" | "bcsOutput" | "estimateEnabled"> {
  if (layout !== undefined && layout !== "full" && layout !== "gas_estimate_only")
    throw new UsageError(`--bcs-layout must be full or gas_estimate_only (got "${layout}")`);
  const on = formats === undefined ? ["json", "bcs"] : formats === "none" ? [] : formats.split(",");
  const unknown = on.filter((f) => f !== "json" && f !== "bcs");
  if (unknown.length > 0)
    throw new UsageError(`--formats must be json,bcs, json, bcs or none (got "${formats}")`);
  return {
    bcsLayout: layout as HandlerOptions["bcsLayout"],
    jsonOutput: on.includes("json"),
    bcsOutput: on.includes("bcs"),
    estimateEnabled: disabled !== true,
  };
}
