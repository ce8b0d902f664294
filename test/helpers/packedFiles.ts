// The files `npm pack` puts in the package, as a user's install gets them: listed by npm itself
// (`--dry-run`, scripts off, so nothing is built), from package.json's `files` and npm's rules.
import { execFileSync } from "node:child_process";
import { repoRoot } from "./isolatedProject.js";

/** The package's files (paths relative to the repository root) and their sizes in bytes. */
export function packedFiles(): Map<string, number> {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [{ files }] = JSON.parse(out) as [{ files: { path: string; size: number }[] }];
  return new Map(files.map((f) => [f.path, f.size]));
}
