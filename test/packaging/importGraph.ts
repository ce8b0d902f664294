// The static import graph of a built module, followed through relative imports and bare
// specifiers (package exports resolved as a runtime would) by esbuild's resolver: every file
// reached, every runtime built-in imported (`node:fs`, `process`, ...) and by which file, and
// every package reached.
import { builtinModules } from "node:module";
import { relative } from "node:path";
import { build } from "esbuild";

/**
 * How bare specifiers resolve: `node` takes packages' `node` export condition (node, Bun and Deno
 * all do); `worker` takes what a runtime without node picks (workerd: `workerd`, `worker`,
 * `browser`, then `import`/`default`).
 */
export type Resolution = "node" | "worker";

/** One import of a runtime built-in. */
export interface BuiltinImport {
  /** As written: `node:fs`, `process`, ... */
  readonly specifier: string;
  /** The importing file, relative to the working folder. */
  readonly from: string;
}

/** What {@link importGraph} found. */
export interface ImportGraph {
  /** Every file reached, relative to the working folder. */
  readonly files: readonly string[];
  readonly builtins: readonly BuiltinImport[];
  /** Names of the packages reached (`zod`, `@mysten/bcs`, ...), sorted. */
  readonly packages: readonly string[];
}

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** The package a node_modules path belongs to (`node_modules/@a/b/x.js` -> `@a/b`). */
function packageOf(file: string): string | undefined {
  const at = file.lastIndexOf("node_modules/");
  if (at === -1) return undefined;
  const parts = file.slice(at + "node_modules/".length).split("/");
  return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
}

/**
 * Follow `entry`'s imports (static and literal dynamic ones). Built-ins are not followed; an
 * import that resolves nowhere makes it throw.
 *
 * @example
 * const { builtins, packages } = await importGraph("dist/index.js", "worker");
 */
export async function importGraph(entry: string, resolution: Resolution): Promise<ImportGraph> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    outdir: "unused",
    logLevel: "silent",
    platform: resolution === "node" ? "node" : "neutral",
    mainFields: ["module", "main"],
    conditions: resolution === "node" ? [] : ["workerd", "worker", "browser"],
    // Built-ins are reported, not followed (under "worker" too, so each one is listed).
    external: [...BUILTINS],
  });
  const cwd = process.cwd();
  const files = Object.keys(result.metafile.inputs).map((f) => relative(cwd, f) || f);
  const builtins: BuiltinImport[] = [];
  for (const [file, input] of Object.entries(result.metafile.inputs))
    for (const imported of input.imports)
      if (imported.external && BUILTINS.has(imported.original ?? imported.path))
        builtins.push({ specifier: imported.original ?? imported.path, from: file });
  const packages = [...new Set(files.map(packageOf).filter((p) => p !== undefined))].sort();
  return { files, builtins, packages };
}
