// A fresh project that installs the built package the way a user gets it: node_modules/gasdigest
// holds package.json and dist/ only, next to gasdigest's runtime dependencies (symlinked from
// this repository), in a folder with no node_modules above it. Used by the no-frameworks test
// and by the Bun, Deno and workerd tests.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** This repository's root. */
export const repoRoot = resolve(import.meta.dirname, "../..");

/** A writable folder with no node_modules in it or in any folder above it. */
export function isolatedParent(): string {
  for (const candidate of [tmpdir(), "/var/tmp", homedir()]) {
    let dir = resolve(candidate);
    let clean = existsSync(dir);
    for (;;) {
      if (existsSync(join(dir, "node_modules"))) clean = false;
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
    if (clean) return candidate;
  }
  throw new Error("no temporary folder without a node_modules above it: cannot isolate the test");
}

/** A project folder and how to remove it. */
export interface IsolatedProject {
  readonly dir: string;
  /** Write a file of the project (relative path). */
  write(path: string, text: string): void;
  remove(): void;
}

/**
 * Make the project: `node_modules/gasdigest` (package.json + dist/), every runtime dependency of
 * gasdigest, a package.json depending on gasdigest (Deno resolves bare names through it).
 *
 * @throws when dist/ has not been built.
 */
export function makeIsolatedProject(prefix: string): IsolatedProject {
  if (
    !existsSync(join(repoRoot, "dist/index.js")) ||
    !existsSync(join(repoRoot, "dist/explorerAssets.js"))
  )
    throw new Error("dist/ is missing or stale: run `npm run build` first (npm test does)");
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  const dir = mkdtempSync(join(isolatedParent(), prefix));
  const self = join(dir, "node_modules/gasdigest");
  mkdirSync(self, { recursive: true });
  cpSync(join(repoRoot, "package.json"), join(self, "package.json"));
  cpSync(join(repoRoot, "dist"), join(self, "dist"), { recursive: true });
  for (const dep of Object.keys(pkg.dependencies)) {
    mkdirSync(dirname(join(dir, "node_modules", dep)), { recursive: true });
    symlinkSync(join(repoRoot, "node_modules", dep), join(dir, "node_modules", dep), "dir");
  }
  const manifest = { type: "module", private: true, dependencies: { gasdigest: "*" } };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest)}\n`);
  return {
    dir,
    write(path, text) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
