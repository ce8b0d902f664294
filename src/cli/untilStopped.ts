import { setTimeout as sleep } from "node:timers/promises";

/**
 * How long a start-up may still take once a stop signal came. A start-up that normally takes
 * milliseconds and has not finished by then is waiting on something that may never come (a
 * strategy module's top-level await); with the 5 s the binary gives a stalled log reader, the
 * process is gone within Docker's default stop timeout of 10 s.
 */
export const START_GRACE_MS = 3_000;

/** What {@link untilStopped} runs: a start that reports its steps, and what it started. */
export interface Stoppable {
  close(): Promise<void>;
}

/**
 * Run a long-lived command until SIGINT or SIGTERM. The signals are handled from the start: one
 * that comes while it is still starting stops it as soon as it has started, or, when the
 * start-up has not finished `graceMs` after the signal, gives it up: `abandoned` is told the
 * step it was at, and the command returns 0 without waiting for it (before, the signal was
 * taken and nothing happened; as PID 1 in a container, the command went on until killed).
 *
 * @example
 * return untilStopped((step) => startServe(argv, io, step), (at) => warn(at));
 */
export async function untilStopped(
  start: (step: (what: string) => void) => Promise<Stoppable>,
  abandoned: (step: string, graceMs: number) => void,
  graceMs = START_GRACE_MS,
): Promise<number> {
  let signal: () => void = () => undefined;
  const signalled = new Promise<void>((resolve) => {
    signal = resolve;
  });
  const stop = () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    signal();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  let step = "starting";
  const starting = start((what) => {
    step = what;
  }).catch((e: unknown) => {
    stop();
    throw e;
  });
  let handle = await Promise.race([starting, signalled.then(() => undefined)]);
  if (handle === undefined) {
    const grace = new AbortController();
    const expired = sleep(graceMs, undefined, { signal: grace.signal }).catch(() => undefined);
    handle = await Promise.race([starting, expired]).finally(() => grace.abort());
    // Given up: the start-up goes on in the background (closed if it ever finishes), and the
    // binary's exit timer ends the process whatever it still waits for.
    if (handle === undefined) {
      abandoned(step, graceMs);
      void starting.then(
        (late) => late.close(),
        () => undefined,
      );
      return 0;
    }
  }
  await signalled;
  await handle.close();
  return 0;
}
