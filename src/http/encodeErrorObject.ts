import type { ErrorCode } from "./types.js";

/**
 * The error object of the wire interface, as JSON text.
 *
 * @example
 * encodeErrorObject("web_framework_error", "not found");
 * // '{"message":"not found","error_code":"web_framework_error","vm_error_code":null}'
 */
export function encodeErrorObject(errorCode: ErrorCode, message: string): string {
  return `{"message":${JSON.stringify(message)},"error_code":"${errorCode}","vm_error_code":null}`;
}
