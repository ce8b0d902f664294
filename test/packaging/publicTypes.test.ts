// Every named type a public function or class uses in its signature (parameters, return type,
// and the members of option and result objects, one level down) can be imported by name from
// some entry point: a user must be able to write the type of what they pass and get back.
// Reads the built declarations (npm test builds first).
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { isolatedParent, makeIsolatedProject, repoRoot } from "../helpers/isolatedProject.js";

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  exports: Record<string, string | { types: string; default: string }>;
};
const entries = Object.entries(pkg.exports)
  .filter((e): e is [string, { types: string; default: string }] => typeof e[1] === "object")
  .map(([name, e]) => [name, join(repoRoot, e.types)] as const);

/**
 * Every entry's declarations in one program: its checker, the exported values (functions,
 * classes, constants) and every exported symbol with the name it is exported by.
 */
function entryExports() {
  const program = ts.createProgram(
    entries.map(([, file]) => file),
    { strict: true, noEmit: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext },
  );
  const checker = program.getTypeChecker();
  const exported = new Map<ts.Symbol, string>();
  const values: ts.Symbol[] = [];
  for (const [, file] of entries) {
    const source = program.getSourceFile(file)!;
    for (const s of checker.getExportsOfModule(checker.getSymbolAtLocation(source)!)) {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      exported.set(target, s.name);
      if (target.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class | ts.SymbolFlags.Variable))
        values.push(target);
    }
  }
  /** The symbol a type reference names (through an import alias), if `node` is one. */
  const referenced = (node: ts.Node): ts.Symbol | undefined => {
    if (!ts.isTypeReferenceNode(node) && !ts.isExpressionWithTypeArguments(node)) return undefined;
    const name = ts.isTypeReferenceNode(node) ? node.typeName : node.expression;
    const symbol = checker.getSymbolAtLocation(name);
    return symbol && symbol.flags & ts.SymbolFlags.Alias
      ? checker.getAliasedSymbol(symbol)
      : symbol;
  };
  return { exported, values, referenced };
}

/** A strict consumer's compiler options, emitting declarations into `dir`/out. */
const consumerOptions = (dir: string): ts.CompilerOptions => ({
  strict: true,
  declaration: true,
  emitDeclarationOnly: true,
  outDir: join(dir, "out"),
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  skipLibCheck: true,
});

/** Names of types declared in our own `dist` that signatures of exports use but no entry exports. */
function unnameable(): string[] {
  const { exported, values, referenced } = entryExports();
  const ours = (d: ts.Declaration) => d.getSourceFile().fileName.startsWith(join(repoRoot, "dist"));
  const missing = new Set<string>();
  const seen = new Set<ts.Node>();
  // Visit the type nodes written in a declaration; named references to our own types must be
  // exported, and their own declarations are followed `depth` more levels.
  function visit(node: ts.Node, depth: number) {
    if (seen.has(node)) return;
    seen.add(node);
    const symbol = referenced(node);
    const decl = symbol?.declarations?.[0];
    if (symbol && decl && ours(decl) && !(symbol.flags & ts.SymbolFlags.TypeParameter)) {
      if (!exported.has(symbol)) missing.add(symbol.name);
      else if (depth > 0) for (const d of symbol.declarations ?? []) visit(d, depth - 1);
    }
    if (ts.isBlock(node)) return;
    ts.forEachChild(node, (child) => visit(child, depth));
  }
  for (const s of values) for (const d of s.declarations ?? []) visit(d, 1);
  return [...missing].sort();
}

/**
 * Names of the types the entries export that no exported function, class or constant uses in
 * its signature, however deep: a type only a cast can give a value of (`tdigest()(config) as
 * TDigestStrategy`), or an internal one leaking out.
 */
function unreached(): string[] {
  const { exported, values, referenced } = entryExports();
  const types = [...exported].filter(([s]) => !values.includes(s));
  const reached = new Set<ts.Symbol>();
  const seen = new Set<ts.Node>();
  function visit(node: ts.Node) {
    if (seen.has(node)) return;
    seen.add(node);
    const symbol = referenced(node);
    if (symbol && !reached.has(symbol)) {
      reached.add(symbol);
      for (const d of symbol.declarations ?? [])
        if (d.getSourceFile().fileName.startsWith(join(repoRoot, "dist"))) visit(d);
    }
    ts.forEachChild(node, visit);
  }
  for (const s of values) for (const d of s.declarations ?? []) visit(d);
  return types.filter(([s]) => !reached.has(s)).map(([, name]) => name);
}

/**
 * Members of exported interfaces and object types, written in our own `dist` as property or
 * method signatures, that carry no doc comment there: what an editor shows nothing for on hover.
 * (Types derived from zod shapes count: their members are the shape's documented properties,
 * unless a spread or a schema in between lost the comments.) Unions are left out: their
 * members are the variants' discriminants.
 */
function undocumentedMembers(): string[] {
  const program = ts.createProgram(
    entries.map(([, file]) => file),
    { strict: true, noEmit: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext },
  );
  const checker = program.getTypeChecker();
  const ours = (d: ts.Declaration) => d.getSourceFile().fileName.startsWith(join(repoRoot, "dist"));
  const written = (d: ts.Declaration) =>
    ts.isPropertySignature(d) ||
    ts.isMethodSignature(d) ||
    ts.isPropertyDeclaration(d) ||
    ts.isMethodDeclaration(d) ||
    ts.isPropertyAssignment(d);
  const seen = new Set<ts.Symbol>();
  const missing: string[] = [];
  for (const [, file] of entries) {
    const source = program.getSourceFile(file)!;
    for (const s of checker.getExportsOfModule(checker.getSymbolAtLocation(source)!)) {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      if (!(target.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface))) continue;
      if (seen.has(target)) continue;
      seen.add(target);
      const type = checker.getDeclaredTypeOfSymbol(target);
      // A union's members are its variants' shared fields (a `type` or `ok` discriminant).
      if (type.isUnion()) continue;
      for (const member of checker.getPropertiesOfType(type)) {
        const decls = (member.declarations ?? []).filter((d) => ours(d) && written(d));
        if (decls.length === 0) continue;
        const doc = ts.displayPartsToString(member.getDocumentationComment(checker)).trim();
        if (doc === "") missing.push(`${target.name}.${member.name}`);
      }
    }
  }
  return missing.sort();
}

/**
 * The compiler's problems (declarations emitted) with a consumer project's `consumer.ts` holding
 * `source`, compiled strict with `exactOptionalPropertyTypes` and `noUncheckedIndexedAccess`.
 */
function strictConsumerProblems(prefix: string, source: string): string[] {
  const project = makeIsolatedProject(prefix);
  try {
    project.write("consumer.ts", source);
    const program = ts.createProgram([join(project.dir, "consumer.ts")], {
      ...consumerOptions(project.dir),
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
    });
    const problems = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
    return problems.map((d) => ts.flattenDiagnosticMessageText(d.messageText, " "));
  } finally {
    project.remove();
  }
}

/**
 * Optional fields of the options objects the exported functions take (parameters named
 * `options`, `opts` or `config`, two levels of nested objects down), written in our own `dist`
 * with a type that does not take `undefined`: under `exactOptionalPropertyTypes` a caller
 * cannot forward a value it may not have there (`{ stream: opts.stream }`). Fields of types
 * derived from zod shapes are zod's input types, which take it. Classes are left out: the
 * errors' constructors are for gasdigest to call.
 */
function optionalWithoutUndefined(): string[] {
  const program = ts.createProgram(
    entries.map(([, file]) => file),
    {
      strict: true,
      exactOptionalPropertyTypes: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
    },
  );
  const checker = program.getTypeChecker();
  const ours = (d: ts.Declaration) => d.getSourceFile().fileName.startsWith(join(repoRoot, "dist"));
  const undefinedType = checker.getUndefinedType();
  const found = new Set<string>();
  const seen = new Set<ts.Type>();
  function visit(given: ts.Type, label: string, depth: number) {
    const type = checker.getNonNullableType(given);
    if (seen.has(type)) return;
    seen.add(type);
    if (type.isUnion()) {
      for (const t of type.types) visit(t, label, depth);
      return;
    }
    if (!(type.flags & ts.TypeFlags.Object) || type.getCallSignatures().length > 0) return;
    if (checker.isArrayType(type) || checker.isTupleType(type)) return;
    for (const member of checker.getPropertiesOfType(type)) {
      const decl = member.declarations?.[0];
      if (!decl || !ours(decl)) continue;
      const path = `${label}.${member.name}`;
      if (
        member.flags & ts.SymbolFlags.Optional &&
        ts.isPropertySignature(decl) &&
        decl.type &&
        !/^z\./.test(decl.type.getText()) &&
        !checker.isTypeAssignableTo(undefinedType, checker.getTypeFromTypeNode(decl.type))
      )
        found.add(path);
      if (depth > 0) visit(checker.getTypeOfSymbol(member), path, depth - 1);
    }
  }
  for (const [name, file] of entries) {
    const source = program.getSourceFile(file)!;
    for (const s of checker.getExportsOfModule(checker.getSymbolAtLocation(source)!)) {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      if (!(target.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable))) continue;
      for (const signature of checker.getTypeOfSymbol(target).getCallSignatures())
        for (const parameter of signature.getParameters())
          if (/option|opts|config/i.test(parameter.name))
            visit(checker.getTypeOfSymbol(parameter), `${name} ${s.name}(${parameter.name})`, 2);
    }
  }
  return [...found].sort();
}

describe("public types", () => {
  it("every type in an exported signature can be imported by name from an entry point", () => {
    expect(unnameable()).toEqual([]);
  });

  it("every exported type is in the signature of an exported value (none only a cast reaches)", () => {
    // Neither is used by any public signature: `Regime` (the simulator's regimes; its options
    // take a `Scenario`) and `RedisTarget` (the parsed URL, internal since parseRedisUrl is).
    // Kept for compatibility; to go in the next major version.
    expect(unreached().sort()).toEqual(["RedisTarget", "Regime"]);
  });

  it("every optional field of an options object takes an explicit undefined in its type", () => {
    // Fastify's own RegisterOptions declares `prefix?: string`: ours must match it, or options of
    // our type would not fit `app.register()` (see FastifyGasdigestOptions).
    expect(optionalWithoutUndefined()).toEqual(["./fastify gasdigest(opts).prefix"]);
  });

  it("every member of an exported type has a doc comment an editor shows", () => {
    expect(undocumentedMembers()).toEqual([]);
  });

  it("a consumer's declarations can name what the entry points return (no dependency's inner file)", () => {
    // `export const doc = createOpenApiDocument()` in a library with declarations on: a type
    // living in a dependency's hashed chunk cannot be written there (TS2742).
    expect(
      strictConsumerProblems(
        "gasdigest-declarations-",
        `import { aip34, BaseError, calibrated, createEngine, createHandler, createOpenApiDocument, createSlidingDigest, createTDigest, geth, parseBlockSample, parseJsonLossless, pushSource, simulator } from "gasdigest";
export const doc = createOpenApiDocument();
// The document's routes are typed as far as a reader goes (its @example compiles as written).
export const operation: string | undefined = doc.paths["/estimate_gas_price"]?.get?.operationId;
export const engine = createEngine({ strategy: calibrated() });
export const handler = createHandler(engine);
export const plain = createEngine({ strategy: aip34() }).snapshot();
export const source = pushSource();
export const sim = simulator({ seed: 1 });
// exactOptionalPropertyTypes: an optional field takes an explicit undefined (a value forwarded).
const given: { seed?: number } = {};
export const forwarded = [
  createEngine({ strategy: aip34(), config: undefined, now: undefined }),
  simulator({ seed: given.seed, scenario: undefined, blocks: undefined, clock: undefined }),
  createTDigest({ compression: undefined, bufferSize: undefined }),
  createSlidingDigest({ windowBlocks: 3, chunks: undefined, exactUpTo: undefined }),
  geth({ blocks: undefined, samplesPerBlock: undefined, percentiles: undefined }),
  createOpenApiDocument({ basePath: undefined, explorer: undefined }),
  parseBlockSample({ height: 1, epoch: 1, gas_unit_prices: [], chain_id: undefined }),
  parseJsonLossless("1", { maxValues: undefined }),
  new BaseError("x", { details: undefined, cause: undefined }),
] as const;
`,
      ),
    ).toEqual([]);
  });

  it("a registered strategy's block is typed as resolveStrategy takes it (no cast)", () => {
    // resolveStrategy takes a registered name as a block of the settings, and hands it to that
    // strategy's maker: both must compile as docs/strategies.md writes them.
    expect(
      strictConsumerProblems(
        "gasdigest-registered-",
        `import { createEngine, type LastBlockOptions, lastBlock, registerStrategy, resolveStrategy } from "gasdigest";
registerStrategy("floor", (settings) => lastBlock(settings.floor as LastBlockOptions));
export const engine = createEngine({ strategy: resolveStrategy("floor", { floor: { multiplier: 1 } }) });
`,
      ),
    ).toEqual([]);
  });

  it("a consumer's declarations can name what each entry's functions return, importing that entry only", async () => {
    // `export const blocks$ = ndjsonFile("h.ndjson")` in a library importing gasdigest/node
    // alone: every type in a return value must be reachable from the entry the function comes
    // from, or the consumer's declaration emit fails (TS2742) though the root exports the type.
    const project = makeIsolatedProject("gasdigest-returns-");
    try {
      mkdirSync(join(project.dir, "node_modules/@types"), { recursive: true });
      for (const dep of ["@types/node", "ioredis", "prom-client", "fastify", "fastify-plugin"])
        symlinkSync(
          join(repoRoot, "node_modules", dep),
          join(project.dir, "node_modules", dep),
          "dir",
        );
      const files: string[] = [];
      for (const [entry, target] of Object.entries(pkg.exports)) {
        if (typeof target === "string") continue;
        const module = (await import(pathToFileURL(join(repoRoot, target.default)).href)) as Record<
          string,
          unknown
        >;
        // Functions, not classes (a class's instance type is exported with it).
        const functions = Object.keys(module).filter(
          (n) => typeof module[n] === "function" && !/^[A-Z]/.test(n),
        );
        if (functions.length === 0) continue;
        const file = `returns${entry.replace(/\W/g, "_")}.ts`;
        project.write(
          file,
          `import { ${functions.join(", ")} } from "gasdigest${entry.slice(1)}";
declare function returned<F extends (...args: never[]) => unknown>(f: F): ReturnType<F>;
${functions.map((f) => `export const ${f}Returned = returned(${f});`).join("\n")}
`,
        );
        files.push(join(project.dir, file));
      }
      expect(files.length).toBeGreaterThan(8);
      // One program per file: in one program, an entry one file imports would make its types
      // reachable from the others. Each reuses the previous one's parsed files.
      const problems: string[] = [];
      let previous: ts.Program | undefined;
      for (const file of files) {
        const program = ts.createProgram(
          [file],
          { ...consumerOptions(project.dir), types: ["node"] },
          undefined,
          previous,
        );
        previous = program;
        for (const d of [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics])
          problems.push(ts.flattenDiagnosticMessageText(d.messageText, " "));
      }
      expect([...new Set(problems)]).toEqual([]);
    } finally {
      project.remove();
    }
  }, 60_000);

  it("a consumer's declarations can name the Fastify plugin when fastify is not hoisted (pnpm)", () => {
    // pnpm's layout (npm's --install-strategy=linked too): gasdigest lives in a store folder,
    // beside links to its own dependencies and peers; the application's node_modules links to
    // it. `export const plugin = gasdigest` must not need a path into that store (TS2742).
    const dir = mkdtempSync(join(isolatedParent(), "gasdigest-linked-"));
    try {
      const store = join(dir, "node_modules/.store/gasdigest/node_modules");
      mkdirSync(join(store, "gasdigest"), { recursive: true });
      cpSync(join(repoRoot, "package.json"), join(store, "gasdigest/package.json"));
      cpSync(join(repoRoot, "dist"), join(store, "gasdigest/dist"), { recursive: true });
      for (const dep of ["zod", "zod-openapi", "rxjs", "fastify", "fastify-plugin"])
        symlinkSync(join(repoRoot, "node_modules", dep), join(store, dep), "dir");
      mkdirSync(join(dir, "node_modules/@types"));
      symlinkSync(join(store, "gasdigest"), join(dir, "node_modules/gasdigest"), "dir");
      symlinkSync(join(repoRoot, "node_modules/fastify"), join(dir, "node_modules/fastify"), "dir");
      symlinkSync(
        join(repoRoot, "node_modules/@types/node"),
        join(dir, "node_modules/@types/node"),
        "dir",
      );
      writeFileSync(join(dir, "package.json"), '{"type":"module","private":true}\n');
      writeFileSync(
        join(dir, "consumer.ts"),
        `import { gasdigest } from "gasdigest/fastify";
export const plugin = gasdigest;
`,
      );
      const program = ts.createProgram([join(dir, "consumer.ts")], {
        ...consumerOptions(dir),
        types: ["node"],
      });
      const problems = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
      expect(problems.map((d) => ts.flattenDiagnosticMessageText(d.messageText, " "))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("options typed FastifyGasdigestOptions fit app.register() under exactOptionalPropertyTypes", () => {
    const project = makeIsolatedProject("gasdigest-fastify-types-");
    try {
      mkdirSync(join(project.dir, "node_modules/@types"), { recursive: true });
      for (const dep of ["fastify", "fastify-plugin", "@types/node"])
        symlinkSync(
          join(repoRoot, "node_modules", dep),
          join(project.dir, "node_modules", dep),
          "dir",
        );
      project.write(
        "consumer.ts",
        `import Fastify from "fastify";
import { aip34, createEngine } from "gasdigest";
import { type FastifyGasdigestOptions, gasdigest } from "gasdigest/fastify";
const options: FastifyGasdigestOptions = { engine: createEngine({ strategy: aip34() }), prefix: "/chain" };
export const app = Fastify().register(gasdigest, options);
`,
      );
      const program = ts.createProgram([join(project.dir, "consumer.ts")], {
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        types: ["node"],
        skipLibCheck: true,
      });
      const problems = ts.getPreEmitDiagnostics(program);
      expect(problems.map((d) => ts.flattenDiagnosticMessageText(d.messageText, " "))).toEqual([]);
    } finally {
      project.remove();
    }
  });
});
