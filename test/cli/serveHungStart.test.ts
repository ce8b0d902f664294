import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { until } from "../helpers/until.js";

const bin = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");

describe("serve: a stop signal during a start-up that never finishes", () => {
  it("gives the start-up up, says where it was, and exits 0 (the built binary)", async () => {
    // A strategy module whose top-level await never settles while a timer keeps node alive (a
    // module that waits for a network answer that never comes). Before the fix the signal was
    // taken and nothing happened: the process ran on until killed.
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-hung-start-"));
    try {
      const loading = join(dir, "loading");
      const module = join(dir, "hangs.mjs");
      writeFileSync(
        module,
        `import { writeFileSync } from "node:fs";
        writeFileSync(${JSON.stringify(loading)}, "");
        setInterval(() => {}, 1000);
        await new Promise(() => {});
        export default () => null;\n`,
      );
      const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--strategy", module], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => {
        out += String(d);
      });
      child.stderr.on("data", (d) => {
        err += String(d);
      });
      const exit = new Promise<[number | null, string | null]>((r) =>
        child.on("exit", (code, signal) => r([code, signal])),
      );
      await until(() => existsSync(loading), 10_000, "the strategy module to be loading");
      child.kill("SIGTERM");
      // A hang guard, not a speed claim: 3 s of grace and the binary's 5 s exit timer, with room.
      const exited = await Promise.race([
        exit,
        new Promise<"alive">((r) => setTimeout(() => r("alive"), 25_000)),
      ]);
      if (exited === "alive") child.kill("SIGKILL");
      expect(exited).toEqual([0, null]);
      expect(err).toBe(
        `gasdigest serve: stopped before it had started: loading the strategy ${JSON.stringify(module)} had not finished 3 s after the signal\n`,
      );
      expect(out).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);
});
