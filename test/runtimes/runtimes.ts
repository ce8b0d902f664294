// Starting Bun, Deno and workerd from their npm packages, each serving test/runtimes/app/ from an
// isolated project on 127.0.0.1 (port 0, the port read back from the runtime), and stopping
// them by pid.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { accessSync, constants, copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { build } from "esbuild";
import type { IsolatedProject } from "../helpers/isolatedProject.js";

const require = createRequire(import.meta.url);
const appFolder = join(import.meta.dirname, "app");

/** Where each runtime's npm package keeps its binary, by platform package (linux x64 and arm64). */
const PLATFORM_PACKAGES: Record<string, Record<string, [pkg: string, file: string]>> = {
  bun: {
    "linux-x64": ["@oven/bun-linux-x64", "bin/bun"],
    "linux-arm64": ["@oven/bun-linux-aarch64", "bin/bun"],
  },
  deno: {
    "linux-x64": ["@deno/linux-x64-glibc", "deno"],
    "linux-arm64": ["@deno/linux-arm64-glibc", "deno"],
  },
  workerd: {
    "linux-x64": ["@cloudflare/workerd-linux-64", "bin/workerd"],
    "linux-arm64": ["@cloudflare/workerd-linux-arm64", "bin/workerd"],
  },
};
/** Where the main package has the binary once its postinstall script has run. */
const LINKED: Record<string, [pkg: string, file: string]> = {
  bun: ["bun", "bin/bun.exe"],
  deno: ["deno", "deno"],
  workerd: ["workerd", "bin/workerd"],
};

function packageFile(pkg: string, file: string): string | undefined {
  try {
    const path = join(dirname(require.resolve(`${pkg}/package.json`)), file);
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}

/**
 * The runtime's native binary from node_modules, whether or not the package's postinstall ran
 * (package.json's allowScripts denies them: the binary is taken from the platform package npm
 * installed as an optional dependency). Checked by running `--version`.
 *
 * @throws naming the packages looked in, when no working binary is installed.
 */
export function runtimeBinary(name: "bun" | "deno" | "workerd"): string {
  const platform = PLATFORM_PACKAGES[name]![`${process.platform}-${process.arch}`];
  const candidates = [platform && packageFile(...platform), packageFile(...LINKED[name]!)];
  for (const path of candidates) {
    if (path === undefined) continue;
    try {
      execFileSync(path, ["--version"], { stdio: "ignore", timeout: 20_000 });
      return path;
    } catch {
      // a placeholder left by a skipped postinstall, or a binary for another CPU: try the next
    }
  }
  const where = platform?.[0] ?? `no platform package for ${process.platform}-${process.arch}`;
  throw new Error(
    `no working ${name} binary in node_modules (looked in ${where} and ${LINKED[name]![0]}): run npm ci`,
  );
}

/** A runtime serving the app. */
export interface RunningRuntime {
  readonly name: string;
  /** What the runtime said it is (`bun 1.4.5`, ...). */
  readonly version: string;
  readonly origin: string;
  readonly pid: number;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM by pid, SIGKILL after 5 s; resolves when it has exited. */
  stop(): Promise<void>;
}

/** The first line of `stream` as JSON, or an error with the runtime's stderr after `ms`. */
async function firstJsonLine(
  stream: Readable,
  child: ChildProcess,
  stderr: () => string,
  ms: number,
): Promise<Record<string, unknown>> {
  const lines = createInterface({ input: stream });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no port after ${ms} ms; stderr:\n${stderr()}`)), ms);
  });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`exited with code ${code} before listening; stderr:\n${stderr()}`);
  });
  try {
    const [line] = (await Promise.race([once(lines, "line"), timeout, exited])) as [string];
    return JSON.parse(line) as Record<string, unknown>;
  } finally {
    clearTimeout(timer);
    exited.catch(() => {});
  }
}

async function start(
  name: string,
  command: string,
  args: string[],
  project: IsolatedProject,
  portStream: "stdout" | "fd3",
  version?: string,
): Promise<RunningRuntime> {
  const home = join(project.dir, `.home-${name}`);
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: home,
    DENO_DIR: join(home, "deno"),
    DENO_NO_UPDATE_CHECK: "1",
    BUN_INSTALL_CACHE_DIR: join(home, "bun"),
    DO_NOT_TRACK: "1",
    NO_COLOR: "1",
  };
  const child = spawn(command, args, {
    cwd: project.dir,
    env,
    stdio: ["ignore", "pipe", "pipe", portStream === "fd3" ? "pipe" : "ignore"],
  });
  let err = "";
  child.stderr!.on("data", (d) => {
    err += String(d);
  });
  const stderr = () => err;
  const stream = (portStream === "fd3" ? child.stdio[3] : child.stdout) as Readable;
  if (portStream === "fd3") child.stdout!.resume();
  let said: Record<string, unknown>;
  try {
    said = await firstJsonLine(stream, child, stderr, 30_000);
  } catch (e) {
    if (child.exitCode === null) child.kill("SIGKILL");
    throw new Error(`${name}: ${(e as Error).message}`);
  }
  const pid = child.pid!;
  return {
    name,
    version: version ?? (typeof said.runtime === "string" ? said.runtime : name),
    origin: `http://127.0.0.1:${said.port}`,
    pid,
    stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      process.kill(pid, "SIGTERM");
      const killer = setTimeout(() => {
        if (child.exitCode === null) process.kill(pid, "SIGKILL");
      }, 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Copy the app's files into the project. */
function copyApp(project: IsolatedProject): void {
  for (const file of readdirSync(appFolder))
    copyFileSync(join(appFolder, file), join(project.dir, file));
}

/** Bun, running app/bun.mjs (no auto-install: only what node_modules holds). */
export function startBun(project: IsolatedProject): Promise<RunningRuntime> {
  copyApp(project);
  return start("bun", runtimeBinary("bun"), ["--no-install", "bun.mjs"], project, "stdout");
}

/**
 * Deno, running app/deno.mjs with network access to 127.0.0.1 only: no file, environment or
 * other permission, so the core provably needs none. npm packages come from node_modules.
 */
export function startDeno(project: IsolatedProject): Promise<RunningRuntime> {
  copyApp(project);
  return start(
    "deno",
    runtimeBinary("deno"),
    ["run", "--no-prompt", "--node-modules-dir=manual", "--allow-net=127.0.0.1", "deno.mjs"],
    project,
    "stdout",
  );
}

/**
 * workerd, serving app/worker.mjs bundled by esbuild as a Worker would be (workerd/worker/browser
 * conditions, no node built-ins, no nodejs_compat flag), on a socket bound to 127.0.0.1:0; the
 * port comes back on workerd's control fd.
 */
export async function startWorkerd(project: IsolatedProject): Promise<RunningRuntime> {
  copyApp(project);
  await build({
    entryPoints: [join(project.dir, "worker.mjs")],
    outfile: join(project.dir, "worker.bundle.js"),
    absWorkingDir: project.dir,
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    logLevel: "silent",
  });
  project.write(
    "workerd.capnp",
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "gasdigest", worker = .gasdigestWorker) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "gasdigest") ],
);
const gasdigestWorker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.bundle.js") ],
  compatibilityDate = "2025-06-01",
);
`,
  );
  const binary = runtimeBinary("workerd");
  const version = execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
  return start(
    "workerd",
    binary,
    ["serve", "workerd.capnp", "--control-fd=3"],
    project,
    "fd3",
    version,
  );
}
