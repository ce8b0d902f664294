import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, connect, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { type ServeHandle, startServe } from "../../src/cli/serve.js";
import { runCli } from "../helpers/cli.js";
import { FAST_DRAIN } from "../helpers/fastDrain.js";
import { freePort, noNodeUrl } from "../helpers/freePort.js";
import { until } from "../helpers/until.js";

/** A node URL nothing listens on (not port 1 or 9: Fetch "bad ports" are refused up front). */
const NO_NODE = await noNodeUrl();

const fixture = (name: string) => join(import.meta.dirname, "..", "fixtures", name);
const handles: ServeHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

async function start(argv: string[]) {
  const logs: string[] = [];
  const stdout = new PassThrough();
  stdout.on("data", (d) => logs.push(String(d)));
  const handle = await startServe(["--port", "0", "--log-level", "info", ...FAST_DRAIN, ...argv], {
    stdout,
    stderr: new PassThrough(),
  });
  handles.push(handle);
  return { handle, logs };
}

describe("gasdigest serve", () => {
  it("serves exactly the replayed estimate of an NDJSON file, with the newest block's headers", async () => {
    const { handle, logs } = await start([
      "--source",
      `ndjson:${fixture("hand.ndjson")}`,
      "--config",
      fixture("hand.config.json"),
    ]);
    await until(() => handle.engine.sourcesCompleted);
    const last = readFileSync(fixture("hand.expected.ndjson"), "utf8").trim().split("\n").pop()!;
    const { height, ...expected } = JSON.parse(last);
    const res = await fetch(`${handle.url}/v1/estimate_gas_price`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(expected);
    expect(Object.fromEntries([...res.headers].filter(([k]) => k.startsWith("x-aptos-")))).toEqual({
      "x-aptos-chain-id": "4",
      "x-aptos-epoch": "2",
      "x-aptos-block-height": height,
      "x-aptos-ledger-version": "51",
      "x-aptos-ledger-timestampusec": "1700000002750000",
      "x-aptos-oldest-block-height": "8",
      "x-aptos-ledger-oldest-version": "40",
    });
    const bcs = await fetch(`${handle.url}/v1/estimate_gas_price`, {
      headers: { accept: "application/x-bcs" },
    });
    expect(bcs.headers.get("content-type")).toBe("application/x-bcs");
    expect(Buffer.from(await bcs.arrayBuffer()).toString("hex")).toBe(
      "0196000000000000009600000000000000012c01000000000000",
    );
    const docs = await Promise.all(
      ["/v1/spec.json", "/spec.json"].map(
        async (p) =>
          (await (await fetch(handle.url + p)).json()) as { openapi: string; servers: unknown },
      ),
    );
    // One document; servers relative to where each copy is served.
    expect({ ...docs[0], servers: [{ url: "./v1" }] }).toEqual(docs[1]);
    expect(docs[0]?.servers).toEqual([{ url: "../v1" }]);
    expect(docs[0]?.openapi).toMatch(/^3\./);
    const yamls = await Promise.all(
      ["/v1/spec.yaml", "/spec.yaml"].map(async (p) => (await fetch(handle.url + p)).text()),
    );
    expect(yamls[0]!.replace('url: "../v1"', 'url: "./v1"')).toBe(yamls[1]);
    const missing = await fetch(`${handle.url}/v1/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      message: "not found",
      error_code: "web_framework_error",
      vm_error_code: null,
    });
    const post = await fetch(`${handle.url}/v1/estimate_gas_price`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toContain("GET");
    const head = await fetch(`${handle.url}/v1/estimate_gas_price`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("x-aptos-block-height")).toBe(height);
    expect(await head.text()).toBe("");
    // The completed file never goes stale, and the log says what happened.
    expect(logs.join("")).toContain('"msg":"source completed; the estimate stays served"');
  });

  it("applies --base-path and --header-prefix", async () => {
    const { handle } = await start([
      "--source",
      `ndjson:${fixture("hand.ndjson")}`,
      "--base-path",
      "/chain/v1",
      "--header-prefix",
      "X-Chain-",
    ]);
    await until(() => handle.engine.sourcesCompleted);
    const res = await fetch(`${handle.url}/chain/v1/estimate_gas_price`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-chain-block-height")).toBe("12");
  });

  it("--bcs-layout, --formats and --estimate-disabled set what the estimate serves, and the document says so", async () => {
    const { handle } = await start([
      "--source",
      `ndjson:${fixture("hand.ndjson")}`,
      "--bcs-layout",
      "gas_estimate_only",
      "--formats",
      "bcs",
    ]);
    await until(() => handle.engine.sourcesCompleted);
    const url = `${handle.url}/v1/estimate_gas_price`;
    const bcs = await fetch(url, { headers: { accept: "application/x-bcs" } });
    expect(bcs.status).toBe(200);
    expect((await bcs.arrayBuffer()).byteLength).toBe(8);
    expect((await fetch(url, { headers: { accept: "application/json" } })).status).toBe(403);
    const doc = (await (await fetch(`${handle.url}/v1/spec.json`)).json()) as {
      paths: Record<string, { get: { responses: Record<string, { content: object }> } }>;
    };
    const op = doc.paths["/estimate_gas_price"]!.get;
    expect(Object.keys(op.responses["200"]!.content)).toEqual(["application/x-bcs"]);
    const off = await start([
      "--source",
      `ndjson:${fixture("hand.ndjson")}`,
      "--estimate-disabled",
    ]);
    await until(() => off.handle.engine.sourcesCompleted);
    const refused = await fetch(`${off.handle.url}/v1/estimate_gas_price`);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error_code: string }).error_code).toBe("api_disabled");
    expect((await fetch(`${off.handle.url}/v1/-/healthy`)).status).toBe(200);
  });

  it("serves the tdigest strategy: the same estimate as replaying the file with it", async () => {
    const file = fixture("scenario-spike-500.ndjson");
    const { handle } = await start(["--source", `ndjson:${file}`, "--strategy", "tdigest"]);
    await until(() => handle.engine.sourcesCompleted);
    expect(handle.engine.strategyName).toBe("tdigest");
    const replayed = await runCli(["replay", "--input", file, "--strategy", "tdigest"]);
    const { height, ...expected } = JSON.parse(replayed.stdout.trim().split("\n").pop()!);
    const res = await fetch(`${handle.url}/v1/estimate_gas_price`);
    expect(await res.json()).toEqual(expected);
    expect(res.headers.get("x-aptos-block-height")).toBe(height);
  });

  it("serves the simulated chain by default", async () => {
    const { handle } = await start(["--interval-ms", "0", "--seed", "3"]);
    await until(() => (handle.engine.snapshot()?.ledger.blockHeight ?? 0n) > 50n);
    const res = await fetch(`${handle.url}/v1/estimate_gas_price`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-aptos-chain-id")).toBe("4");
  });

  it("--max-staleness-ms 0 never goes stale; 1 does as soon as the chain pauses", async () => {
    // One block now, the next an hour away.
    const slow = ["--interval-ms", "3600000", "--seed", "3"];
    const never = await start([...slow, "--max-staleness-ms", "0"]);
    const soon = await start([...slow, "--max-staleness-ms", "1"]);
    await until(() => never.handle.engine.snapshot() !== undefined);
    await until(() => soon.handle.engine.snapshot() !== undefined);
    await new Promise((r) => setTimeout(r, 50));
    expect((await fetch(`${never.handle.url}/v1/estimate_gas_price`)).status).toBe(200);
    const stale = await fetch(`${soon.handle.url}/v1/estimate_gas_price`);
    expect(stale.status).toBe(503);
    expect(await stale.json()).toMatchObject({ error_code: "health_check_failed" });
  });

  it("does not warn that it went stale while its stop drains a kept-alive connection", async () => {
    // One block now, the next an hour away; stale 200 ms after it. The stop closes the source,
    // and the drain waits out the idle connection's keep-alive (1 s): no block can come then,
    // and the newest one ageing past the bound is no outage.
    const { handle, logs } = await start(["--interval-ms", "3600000", "--max-staleness-ms", "200"]);
    await until(() => handle.engine.snapshot() !== undefined);
    const { port } = new URL(handle.url);
    const socket = connect(Number(port), "127.0.0.1");
    let answer = "";
    socket.on("data", (d) => {
      answer += String(d);
    });
    socket.on("error", () => undefined);
    socket.write("GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => answer.includes("\r\n\r\n"));
    await handle.close();
    socket.destroy();
    const text = logs.join("");
    expect(text).toContain('"msg":"gasdigest stopped"');
    expect(text).not.toContain("stale:");
  });

  it("rejects unusable flags with exit code 1 and the reason", async () => {
    for (const [argv, message] of [
      [
        ["--source", "kafka:x"],
        '--source must be sim, ndjson:PATH, aptos:URL or redis://HOST:PORT[/DB] (got "kafka:x")',
      ],
      [["--source", "redis://h:1/x"], "--source: the path must be a database number"],
      [["--stream", "k"], "--stream only applies to --source redis://HOST:PORT"],
      [
        ["--warm-start-transactions", "9"],
        "--warm-start-transactions only applies to --source redis://HOST:PORT",
      ],
      [
        ["--source", "redis://127.0.0.1:1", "--warm-start-transactions", "0"],
        '--warm-start-transactions must be a whole number from 1 to 9007199254740991 (got "0")',
      ],
      [["--port", "99999"], '--port must be a whole number from 0 to 65535 (got "99999")'],
      [["--source", "ndjson:x", "--seed", "1"], "--seed only applies to --source sim"],
      [["--source", "ndjson:x", "--scenario", "spike"], "--scenario only applies to --source sim"],
      [
        ["--source", "ndjson:x", "--interval-ms", "5"],
        "--interval-ms only applies to --source sim",
      ],
      [["--backfill", "10"], "--backfill only applies to --source aptos:URL"],
      [
        ["--source", `aptos:${NO_NODE}`, "--backfill", "many"],
        "--backfill must be a whole number from 0 to",
      ],
      [["--log-level", "loud"], "--log-level must be one of"],
      [["--base-path", "no-slash"], "--base-path must be a path such as"],
      [["--bcs-layout", "short"], '--bcs-layout must be full or gas_estimate_only (got "short")'],
      [["--formats", "json,xml"], '--formats must be json,bcs, json, bcs or none (got "json,xml")'],
      // A file source that cannot be read would only ever answer 503.
      [
        ["--source", "ndjson:/nonexistent/blocks.ndjson"],
        "cannot read /nonexistent/blocks.ndjson (ENOENT",
      ],
      [["--source", "ndjson:/tmp"], "cannot read /tmp (it is a directory)"],
    ] as const) {
      const r = await runCli(["serve", "--port", "0", ...argv]);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stderr).toContain(message);
    }
  });

  it("a port in use is one line and exit 1, without the usage text (a crash loop fills no journal)", async () => {
    const taken = createNetServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const r = await runCli(["serve", "--port", String(port)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(`^gasdigest serve: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE.*\n$`),
      );
      // The metrics port's own listen names its flag: the two failures read alike otherwise.
      const m = await runCli(["serve", "--port", "0", "--metrics-port", String(port)]);
      expect(m.code).toBe(1);
      expect(m.stderr).toMatch(
        new RegExp(
          `^gasdigest serve: cannot listen on 127\\.0\\.0\\.1:${port} \\(--metrics-port\\): .*EADDRINUSE.*\n$`,
        ),
      );
    } finally {
      taken.close();
    }
  });

  it("closes gracefully on SIGTERM (the built binary)", async () => {
    const bin = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
    const argv = [bin, "serve", "--port", "0", "--interval-ms", "50", ...FAST_DRAIN];
    const child = spawn(process.execPath, argv, {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += String(d);
    });
    await until(() => out.includes("first block ingested"), 10_000);
    const url = JSON.parse(out.split("\n")[0]!).estimate as string;
    expect((await fetch(url)).status).toBe(200);
    child.kill("SIGTERM");
    const code = await new Promise((r) => child.on("exit", r));
    expect(code).toBe(0);
    expect(out).toContain('"msg":"gasdigest stopped"');
  });

  it("stops on a SIGTERM that came while Node was still loading the CLI, serve and publish (the built binary)", async () => {
    // A module hook holds the load of the CLI (dist/cli/main.js), or of the command's own module,
    // which main loads when the command is run, until the signal was sent. Before the fix no
    // handler was set yet: the process ended by the signal (as PID 1 in a container, the signal
    // was ignored and the command went on until killed).
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-early-signal-"));
    try {
      writeFileSync(
        join(dir, "hooks.mjs"),
        `import { existsSync, readFileSync, writeFileSync } from "node:fs";
        import { setTimeout as sleep } from "node:timers/promises";
        const held = readFileSync(new URL("./held", import.meta.url), "utf8");
        export async function load(url, context, next) {
          if (url.endsWith(held)) {
            writeFileSync(new URL("./loading", import.meta.url), "");
            while (!existsSync(new URL("./go", import.meta.url))) await sleep(10);
          }
          return next(url, context);
        }\n`,
      );
      writeFileSync(
        join(dir, "register.mjs"),
        'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n',
      );
      const bin = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
      const noRedis = `redis://127.0.0.1:${await freePort()}`;
      for (const [argv, last, held] of [
        [["serve", "--port", "0", "--interval-ms", "50"], "gasdigest stopped", "/dist/cli/main.js"],
        [
          ["serve", "--port", "0", "--interval-ms", "50"],
          "gasdigest stopped",
          "/dist/cli/serve.js",
        ],
        [
          ["publish", "--source", "sim", "--to", noRedis],
          "gasdigest publish stopped before Redis answered",
          "/dist/cli/main.js",
        ],
        [
          ["publish", "--source", "sim", "--to", noRedis],
          "gasdigest publish stopped before Redis answered",
          "/dist/cli/publish.js",
        ],
      ] as const) {
        for (const f of ["loading", "go"]) rmSync(join(dir, f), { force: true });
        writeFileSync(join(dir, "held"), held);
        const child = spawn(
          process.execPath,
          ["--import", join(dir, "register.mjs"), bin, ...argv],
          { stdio: ["ignore", "pipe", "pipe"] },
        );
        let out = "";
        child.stdout.on("data", (d) => {
          out += String(d);
        });
        const exit = new Promise<[number | null, string | null]>((r) =>
          child.on("exit", (code, signal) => r([code, signal])),
        );
        await until(() => existsSync(join(dir, "loading")), 10_000, "the CLI to be loading");
        child.kill("SIGTERM");
        writeFileSync(join(dir, "go"), "");
        const exited = await Promise.race([
          exit,
          new Promise<"alive">((r) => setTimeout(() => r("alive"), 10_000)),
        ]);
        if (exited === "alive") child.kill("SIGKILL");
        expect(exited, `${argv[0]}, ${held} held`).toEqual([0, null]);
        expect(out, `${argv[0]}, ${held} held`).toContain(`"msg":"${last}"`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it("stops on SIGTERM while its NDJSON source is a FIFO no writer has opened yet (the built binary)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-fifo-"));
    try {
      const fifo = join(dir, "blocks.fifo");
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
      const bin = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
      const child = spawn(
        process.execPath,
        [bin, "serve", "--port", "0", "--source", `ndjson:${fifo}`],
        {
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let out = "";
      child.stdout.on("data", (d) => {
        out += String(d);
      });
      await until(() => out.includes('"estimate"'), 10_000);
      child.kill("SIGTERM");
      // Its open of the FIFO waits in a pool thread: before the fix the process logged
      // "gasdigest stopped" and lived on until a second signal.
      const exited = await Promise.race([
        new Promise<number | null>((r) => child.on("exit", (code) => r(code))),
        new Promise<"alive">((r) => setTimeout(() => r("alive"), 15_000)),
      ]);
      if (exited === "alive") child.kill("SIGKILL");
      expect(exited).toBe(0);
      expect(out).toContain('"msg":"gasdigest stopped"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it("stops on SIGTERM even when the reader of its log has stalled (the built binary)", async () => {
    const bin = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
    const child = spawn(
      process.execPath,
      [bin, "serve", "--port", "0", "--interval-ms", "50", "--log-level", "debug", ...FAST_DRAIN],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    const read = (d: Buffer) => {
      out += String(d);
    };
    child.stdout.on("data", read);
    await until(() => out.includes("first block ingested"), 10_000);
    const url = JSON.parse(out.split("\n")[0]!).estimate as string;
    // Stop reading: the pipe fills (64 KiB) with one debug line per request and stays full.
    child.stdout.off("data", read);
    child.stdout.pause();
    for (let i = 0; i < 1500; i++) await (await fetch(url)).arrayBuffer();
    const stopped = Date.now();
    child.kill("SIGTERM");
    const exited = await Promise.race([
      new Promise((r) => child.on("exit", () => r(true))),
      new Promise((r) => setTimeout(() => r(false), 20_000)),
    ]);
    if (!exited) child.kill("SIGKILL");
    expect(exited).toBe(true);
    expect(Date.now() - stopped).toBeLessThan(15_000);
  }, 60_000);
});
