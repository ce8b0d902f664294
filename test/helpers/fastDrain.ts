/**
 * `serve` flags for tests that stop it: a keep-alive of 1 s. The tests' fetch (undici) then
 * closes its connection after each answer (it keeps one only with more than a second of
 * margin), so a stop need not wait out the default 5 s keep-alive of the connection the test's
 * last request left idle (the drain honours it: docs/operations.md).
 */
export const FAST_DRAIN: readonly string[] = ["--keep-alive-timeout-ms", "1000"];
