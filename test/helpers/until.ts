/**
 * Poll `check` every 20 ms until it holds; throw `timed out waiting for <what>` after `ms`.
 *
 * @example
 * await until(() => handle.engine.sourcesCompleted, 10_000, "the file to be read");
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms = 15_000,
  what = "condition",
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
