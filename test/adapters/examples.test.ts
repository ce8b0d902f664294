// The examples in examples/<framework>/ run for real: each starts (port 0), serves the
// estimate of its simulated chain, and exits cleanly on SIGTERM. They import the built
// package by its name (`gasdigest/...`), so dist/ must be built (npm test does).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { request } from "./contract.js";

const root = resolve(import.meta.dirname, "../..");
const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

async function start(example: string): Promise<{ child: ChildProcess; url: string }> {
  if (!existsSync(join(root, "dist/adapters/fetch/index.js")))
    throw new Error("dist/ is missing: run `npm run build` first (npm test does)");
  const child = spawn(process.execPath, [join(root, "examples", example, "server.mjs")], {
    cwd: root,
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  running.push(child);
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, "line")) as [string];
  const url = /^gasdigest on (http:\/\/\S+)$/.exec(line)?.[1];
  if (!url) throw new Error(`unexpected first line from ${example}: ${line}`);
  return { child, url };
}

describe("examples", () => {
  for (const example of ["node", "hono", "express", "fastify", "koa"]) {
    it(`${example}: serves the simulated chain's estimate and exits on SIGTERM`, async () => {
      const { child, url } = await start(example);
      expect(url).toMatch(/\/v1\/estimate_gas_price$/);
      // The simulator produces its first block 250 ms after start: 503 until then.
      let res = await request(url);
      for (let i = 0; i < 40 && res.status === 503; i++) {
        await new Promise((r) => setTimeout(r, 100));
        res = await request(url);
      }
      expect(res.status).toBe(200);
      const estimate = JSON.parse(res.text) as Record<string, number>;
      expect(estimate.deprioritized_gas_estimate).toBeGreaterThanOrEqual(100);
      expect(estimate.gas_estimate).toBeGreaterThanOrEqual(estimate.deprioritized_gas_estimate!);
      expect(estimate.prioritized_gas_estimate).toBeGreaterThanOrEqual(estimate.gas_estimate!);
      expect(res.headers["x-aptos-block-height"]).toMatch(/^\d+$/);
      // The explorer works as configured: node hosts read swagger-ui-dist, Hono gets the module.
      const page = await request(url.replace(/estimate_gas_price$/, "spec"));
      expect(page.status).toBe(200);
      const bundle = await request(
        url.replace(/estimate_gas_price$/, "spec/assets/swagger-ui-bundle.js"),
      );
      expect(bundle.status).toBe(200);
      const origin = new URL(url).origin;
      if (example !== "node") expect((await request(`${origin}/`)).text).toBe("my app");
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      expect((await exited)[0]).toBe(0);
    });
  }

  it("typecheck (checkJs) against the built package's types", async () => {
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const run = promisify(execFile);
    await expect(
      run(process.execPath, [tsc, "-p", "examples/tsconfig.json"], { cwd: root }),
    ).resolves.toMatchObject({ stdout: "" });
  }, 60_000);
});
