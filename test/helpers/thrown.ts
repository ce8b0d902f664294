/** What `call` throws; fails the test when it returns instead. */
export function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}
