import type { CliIo } from "./io.js";

/** Off a terminal, a progress line at most this often (a run shorter than it prints none). */
export const PROGRESS_LINE_MS = 10_000;

/**
 * Progress for a long run whose stderr is not a terminal (a log, CI): the function returned
 * writes `line(elapsedMs)` to stderr when `PROGRESS_LINE_MS` have gone by since the start or
 * the last line, and does nothing otherwise. The clock is `io.now` (tests), else
 * `performance.now`.
 *
 * @example
 * const progress = progressLines(io, (ms) => `simulate: ${n} blocks written, ${Math.round(ms / 1000)} s`);
 * for (const block of chain) { write(block); progress(); }
 */
export function progressLines(io: CliIo, line: (elapsedMs: number) => string): () => void {
  const now = io.now ?? (() => performance.now());
  const started = now();
  let next = started + PROGRESS_LINE_MS;
  return () => {
    const t = now();
    if (t < next) return;
    next = t + PROGRESS_LINE_MS;
    io.stderr.write(`${line(t - started)}\n`);
  };
}
