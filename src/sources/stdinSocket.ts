import { fstatSync } from "node:fs";

/** The paths that name this process's standard input. */
const STDIN_PATHS = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);

/**
 * Whether `path` names this process's standard input and that is a socket. Node's
 * `child_process` (and so execa, zx) gives a child's stdin as one end of a socket pair, and
 * Linux refuses to open a socket by its path (`ENXIO`): such an input is read from
 * `process.stdin` instead (`--input /dev/stdin`, `--config /dev/stdin` under a Node parent).
 *
 * @example
 * const stream = isStdinSocket(path) ? process.stdin : createReadStream(path);
 */
export function isStdinSocket(path: string): boolean {
  if (!STDIN_PATHS.has(path)) return false;
  try {
    return fstatSync(0).isSocket();
  } catch {
    return false;
  }
}
