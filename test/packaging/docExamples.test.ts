// The code examples a user copies: every TypeScript and JavaScript block of README.md and
// docs/*.md, and every JSDoc `@example` that shows its imports, compile against the built
// package as a strict NodeNext project (`exactOptionalPropertyTypes`, checkJs) sees it, with
// the frameworks they mount in installed. Placeholders an example leaves to the reader (`engine`,
// `logger`, ...) are declared below. And the configuration example refuses what the command line
// refuses. Reads the built package (npm test builds first).
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { type IsolatedProject, makeIsolatedProject, repoRoot } from "../helpers/isolatedProject.js";

/** The packages examples import besides gasdigest (dev dependencies here, a user's own there). */
const HOSTS = [
  "@aptos-labs",
  "@hono",
  "@types",
  "express",
  "fastify",
  "fastify-plugin",
  "hono",
  "ioredis",
  "koa",
  "prom-client",
];

/** What examples leave to the reader. A module's own `const engine` shadows these. */
const PLACEHOLDERS = `
declare const engine: import("gasdigest").Engine;
declare const url: string;
declare const text: string; // a config file's text
declare const logger: { info(fields: object, message: string): void };
declare function onCommittedBlock(
  listener: (block: { height: string; epoch: string; userTxnPrices: string[] }) => void,
): void;
declare const createFetchHandler: typeof import("gasdigest/fetch").createFetchHandler;
declare const Aptos: typeof import("@aptos-labs/ts-sdk").Aptos;
declare const AptosConfig: typeof import("@aptos-labs/ts-sdk").AptosConfig;
declare const Network: typeof import("@aptos-labs/ts-sdk").Network;
`;

interface Example {
  /** Where it is written: `docs/http.md:20`, `src/core/createEngine.ts:112`. */
  readonly where: string;
  readonly code: string;
  readonly js: boolean;
}

/** A block that is a call signature (`gasdigest(engine, options?: HandlerOptions): ...`). */
const isSignature = (code: string) => !code.trim().includes("\n") && /\boptions\??: /.test(code);

function markdownExamples(): Example[] {
  const files = [
    "README.md",
    ...readdirSync(join(repoRoot, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  return files.flatMap((file) => {
    const text = readFileSync(join(repoRoot, file), "utf8");
    return [...text.matchAll(/^```(ts|typescript|js|mjs)\n([\s\S]*?)^```/gm)]
      .filter(([, , code]) => !isSignature(code as string))
      .map(([, lang, code]) => ({
        where: `${file}:${text.slice(0, text.indexOf(code as string)).split("\n").length}`,
        code: code as string,
        js: lang === "js" || lang === "mjs",
      }));
  });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".generated.ts") ? [path] : [];
  });
}

/** JSDoc `@example`s with an `import ... from "gasdigest..."` line: they claim to be complete. */
function jsdocExamples(): Example[] {
  const out: Example[] = [];
  for (const file of sourceFiles(join(repoRoot, "src"))) {
    const lines = readFileSync(file, "utf8").split("\n");
    lines.forEach((line, i) => {
      if (!/^\s*\*\s*@example\b/.test(line)) return;
      const body: string[] = [];
      for (const next of lines.slice(i + 1)) {
        if (/^\s*\*\//.test(next) || /^\s*\*\s*@\w/.test(next)) break;
        body.push(next.replace(/^\s*\* ?/, ""));
      }
      const code = body.join("\n");
      if (/^import .* from "gasdigest(\/[\w-]+)?";/m.test(code))
        out.push({ where: `${relative(repoRoot, file)}:${i + 1}`, code, js: false });
    });
  }
  return out;
}

function projectWithHosts(prefix: string): IsolatedProject {
  const project = makeIsolatedProject(prefix);
  for (const name of HOSTS)
    symlinkSync(
      join(repoRoot, "node_modules", name),
      join(project.dir, "node_modules", name),
      "dir",
    );
  return project;
}

/** The compiler's problems with the examples, each named by where the example is written. */
function compileProblems(examples: readonly Example[]): string[] {
  const project = projectWithHosts("gasdigest-doc-examples-");
  try {
    project.write("placeholders.d.ts", PLACEHOLDERS);
    const written = new Map<string, string>();
    examples.forEach((example, k) => {
      const name = `example${k}.${example.js ? "mjs" : "ts"}`;
      project.write(name, `${example.code}\nexport {};\n`);
      written.set(join(project.dir, name), example.where);
    });
    const program = ts.createProgram([join(project.dir, "placeholders.d.ts"), ...written.keys()], {
      strict: true,
      exactOptionalPropertyTypes: true,
      allowJs: true,
      checkJs: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: ["node"],
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const message = ts.flattenDiagnosticMessageText(d.messageText, " ");
      if (!d.file) return message;
      const where = written.get(d.file.fileName) ?? relative(project.dir, d.file.fileName);
      const { line } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
      return `${where} (line ${line + 1} of the example): ${message}`;
    });
  } finally {
    project.remove();
  }
}

describe("the code examples of the docs", () => {
  it("compile against the built package: README.md, docs/*.md and JSDoc", () => {
    const markdown = markdownExamples();
    const jsdoc = jsdocExamples();
    expect(markdown.length).toBeGreaterThan(20);
    expect(jsdoc.length).toBeGreaterThan(10);
    expect(compileProblems([...markdown, ...jsdoc])).toEqual([]);
  }, 60_000);

  it("configuration.md's split of a config file refuses what the command line refuses", async () => {
    const example = markdownExamples().find(
      (e) => e.where.startsWith("docs/configuration.md") && e.code.includes("resolveStrategy("),
    );
    expect(example).toBeDefined();
    const project = projectWithHosts("gasdigest-config-example-");
    try {
      const js = ts.transpileModule(example!.code, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      project.write(
        "example.mjs",
        `const text = process.argv[2];\n${js}\n` +
          "console.log(engine.config.lowBlockHistory, String(engine.config.minGasUnitPrice));\n",
      );
      const run = (file: string) =>
        promisify(execFile)(process.execPath, [join(project.dir, "example.mjs"), file], {
          cwd: project.dir,
        });
      // The file of the page: its settings go to the engine, its blocks to the strategies.
      await expect(
        run('{"lowBlockHistory": 5, "minGasUnitPrice": "1000000000", "geth": {"blocks": 40}}'),
      ).resolves.toMatchObject({ stdout: "5 1000000000\n" });
      // Integers written with an exponent, a fraction or a sign: refused, as by `--config`.
      const refused = run('{"lowBlockHistory": 1e1, "minGasUnitPrice": -0, "geth": {}}');
      await expect(refused).rejects.toMatchObject({
        stderr: expect.stringContaining(
          "lowBlockHistory: must be written with digits only, without a fraction, exponent or sign (got 1e1); minGasUnitPrice: must be written with digits only",
        ),
      });
    } finally {
      project.remove();
    }
  }, 30_000);
});
