/**
 * Watch the event loop's turns while a source hands blocks over: call `block()` for each block,
 * `stop()` at the end for the most blocks handed over within one turn, and how many turns ran.
 */
export function watchTurns() {
  let since = 0;
  let most = 0;
  let turns = 0;
  let ticking = true;
  const tick = () => {
    most = Math.max(most, since);
    since = 0;
    turns++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    block() {
      since++;
    },
    stop() {
      ticking = false;
      return { most: Math.max(most, since), turns };
    },
  };
}

/** Keep the CPU busy for `ms` (a subscriber's work on a block). */
export function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}
