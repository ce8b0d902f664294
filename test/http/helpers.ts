import type { GasConfigInput } from "../../src/core/config.js";
import { createEngine } from "../../src/core/createEngine.js";
import type { StrategyFactory } from "../../src/core/types.js";
import { createHandler } from "../../src/http/createHandler.js";
import type { HandlerOptions } from "../../src/http/handlerOptions.js";
import { swaggerUiFiles } from "../../src/http/swaggerUiFiles.js";
import type { HandlerLogger, HandlerResponse } from "../../src/http/types.js";
import { aip34 } from "../../src/strategies/aip34.js";
import { block } from "../helpers/blocks.js";

/** Wall clock just after block 3 of `test/helpers/blocks.ts` (timestamps 1.7e15 + h * 250 ms). */
export const T0 = 1_700_000_001_000;

/** A logger recording every call. */
export function recordingLogger() {
  const lines: { level: string; obj: Record<string, unknown>; msg: string | undefined }[] = [];
  const at =
    (level: string) =>
    (obj: object, msg?: string): void => {
      lines.push({ level, obj: obj as Record<string, unknown>, msg });
    };
  const logger: HandlerLogger = {
    error: at("error"),
    warn: at("warn"),
    info: at("info"),
    debug: at("debug"),
  };
  return { logger, lines };
}

/**
 * An engine + handler on a fake clock; `get()` sends a request with no socket. The explorer's
 * files come from the installed swagger-ui-dist unless `options` say otherwise.
 */
export function setup(
  options: HandlerOptions = {},
  engineOptions: { config?: GasConfigInput; strategy?: StrategyFactory } = {},
) {
  let t = T0;
  const now = () => t;
  const engine = createEngine({
    strategy: engineOptions.strategy ?? aip34(),
    config: engineOptions.config,
    now,
  });
  const handler = createHandler(engine, { now, explorerAssets: swaggerUiFiles(), ...options });
  const get = (url: string, headers: Record<string, string | string[]> = {}, method = "GET") =>
    handler({ method, url, headers });
  return {
    engine,
    handler,
    get,
    advance(ms: number) {
      t += ms;
    },
    /** Ingest blocks `from..to` (idle, chain 4, epoch 1). */
    blocks(from: number, to: number, over = {}) {
      for (let h = from; h <= to; h++) engine.ingest(block(h, over));
    },
  };
}

/** The body as text. */
export function text(res: HandlerResponse): string {
  if (res.body === undefined) return "";
  return new TextDecoder().decode(res.body);
}

/** The body as hex. */
export function hex(res: HandlerResponse): string {
  return Buffer.from(res.body ?? new Uint8Array()).toString("hex");
}

/** The error object body expected for `code` and `message`. */
export function errorBody(code: string, message: string): string {
  return JSON.stringify({ message, error_code: code, vm_error_code: null });
}

/** The seven chain-state headers after blocks 1..3 of the helper chain. */
export function chainHeadersAfter3(prefix = "X-Aptos-") {
  return {
    [`${prefix}Chain-Id`]: "4",
    [`${prefix}Ledger-Version`]: "3999",
    [`${prefix}Ledger-Oldest-Version`]: "1000",
    [`${prefix}Ledger-TimestampUsec`]: "1700000000750000",
    [`${prefix}Epoch`]: "1",
    [`${prefix}Block-Height`]: "3",
    [`${prefix}Oldest-Block-Height`]: "1",
  };
}
