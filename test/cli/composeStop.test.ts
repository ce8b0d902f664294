// compose.yaml follows docs/operations.md's own advice on stopping: Docker kills a container
// 10 s after its stop signal unless told otherwise, which is exactly `serve`'s default
// --close-timeout-ms, so a replica's drain was cut at its deadline (and its last log line lost).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

interface Service {
  command?: string[];
  stop_grace_period?: string;
}

const compose = parse(readFileSync(join(import.meta.dirname, "..", "..", "compose.yaml"), "utf8"), {
  merge: true,
}) as { services: Record<string, Service> };

/** A compose duration (`15s`, `1m30s`) in ms; Docker's default stop timeout is 10 s. */
function durationMs(text: string | undefined): number {
  if (text === undefined) return 10_000;
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)(ms|s|m|h)/g))
    ms += Number(n) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[unit as "ms" | "s" | "m" | "h"];
  return ms;
}

describe("compose.yaml: stop timeouts", () => {
  it("give every gasdigest service longer than its own drain", () => {
    const gasdigest = Object.entries(compose.services).filter(([, s]) =>
      s.command?.includes("bin/gasdigest.js"),
    );
    expect(gasdigest.length).toBe(5);
    for (const [name, s] of gasdigest) {
      const command = s.command!;
      const at = command.indexOf("--close-timeout-ms");
      // serve drains for --close-timeout-ms (10 s); publish writes what waits for 5 s.
      const drainMs =
        command[2] === "serve" ? (at === -1 ? 10_000 : Number(command[at + 1])) : 5_000;
      expect(durationMs(s.stop_grace_period), name).toBeGreaterThan(drainMs);
    }
  });
});
