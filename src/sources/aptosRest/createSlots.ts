/** Gives out a fixed number of places, lowest priority value first. */
export interface Slots {
  /**
   * Wait for a place; resolves with the function that gives it back (call it exactly once).
   * Rejects with the signal's reason if `signal` aborts first (the wait is then dropped).
   */
  acquire(priority: bigint, signal: AbortSignal): Promise<() => void>;
  /** Places taken now. */
  readonly taken: number;
  /** Acquisitions waiting for a place. */
  readonly waiting: number;
}

interface Waiter {
  readonly priority: bigint;
  readonly grant: () => void;
}

/**
 * A semaphore of `size` places whose waiters are served by ascending `priority` (ties in
 * arrival order). The source gives its requests the height they are for, so the block the
 * emission waits on is always served before blocks further ahead.
 *
 * @example
 * const slots = createSlots(4);
 * const release = await slots.acquire(1042n, signal);
 * try { await fetch(url) } finally { release() }
 */
export function createSlots(size: number): Slots {
  let taken = 0;
  const queue: Waiter[] = [];

  function releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = queue.shift();
      if (next) next.grant();
      else taken--;
    };
  }

  return {
    get taken() {
      return taken;
    },
    get waiting() {
      return queue.length;
    },
    acquire(priority, signal) {
      if (signal.aborted) return Promise.reject(signal.reason);
      if (taken < size) {
        taken++;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          const i = queue.indexOf(waiter);
          if (i !== -1) queue.splice(i, 1);
          reject(signal.reason);
        };
        const waiter: Waiter = {
          priority,
          grant: () => {
            signal.removeEventListener("abort", onAbort);
            resolve(releaser());
          },
        };
        let i = queue.length;
        while (i > 0 && queue[i - 1]!.priority > priority) i--;
        queue.splice(i, 0, waiter);
        signal.addEventListener("abort", onAbort, { once: true });
      });
    },
  };
}
