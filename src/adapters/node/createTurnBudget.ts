/** How many requests a node server parses per turn of the event loop, shared by its connections. */
export interface TurnBudget {
  /** Whether this turn's requests are used up (parse more on the next turn). */
  readonly exhausted: boolean;
  /** Count one request parsed. */
  spend(): void;
  /** Run `resume` on a later turn, once there is budget again (in the order asked, once each). */
  wait(resume: () => void): void;
}

/**
 * A budget of requests parsed per turn of the event loop (strictly: between two resets, which
 * happen on the turn after it ran out or someone waited). libuv accepts one connection per
 * turn, so a turn spent parsing thousands of pipelined requests delays every new connection,
 * however legitimate: with the budget, connections that have more to parse take turns, and
 * a flood cannot stretch a turn beyond about `perTurn` requests.
 *
 * @example
 * const budget = createTurnBudget(64);
 * if (budget.exhausted) budget.wait(pump); else feed();
 */
export function createTurnBudget(perTurn: number): TurnBudget {
  let spent = 0;
  let scheduled = false;
  let waiting = new Set<() => void>();

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(nextTurn);
  };

  function nextTurn() {
    scheduled = false;
    spent = 0;
    const queue = waiting;
    waiting = new Set();
    for (const resume of queue) {
      if (spent >= perTurn) waiting.add(resume);
      else resume();
    }
    if (waiting.size > 0) schedule();
  }

  return {
    get exhausted() {
      return spent >= perTurn;
    },
    spend() {
      // The count starts again on the turn after it ran out (or after someone waited).
      if (++spent === perTurn) schedule();
    },
    wait(resume) {
      waiting.add(resume);
      schedule();
    },
  };
}
