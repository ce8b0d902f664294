import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { packedFiles } from "../helpers/packedFiles.js";

// Every relative link in the project's Markdown points to a file that exists and, when it names
// an anchor in a Markdown file, to a heading (or an explicit `id`) that file has. A Markdown
// file the npm package ships links only to files the package ships too: a reader of
// node_modules/gasdigest has no checkout (no compose.yaml, no test/).

const ROOT = resolve(import.meta.dirname, "..", "..");
const SKIP = new Set(["node_modules", "dist", ".git", "coverage"]);

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...markdownFiles(path));
    else if (name.endsWith(".md")) out.push(path);
  }
  return out;
}

/** The text outside fenced code blocks and inline code spans (links there are examples). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/^```[\s\S]*?^```/gm, "");
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const [, id] of text.matchAll(/\sid="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

interface Link {
  readonly from: string;
  readonly target: string;
}

function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  for (const [, target] of prose(readFileSync(file, "utf8")).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // http:, https:, mailto:
    links.push({ from: file, target: target! });
  }
  return links;
}

/** What is wrong with a link, or `undefined` when it resolves. */
function problem({ from, target }: Link): string | undefined {
  const [path, anchor] = target.split("#", 2) as [string, string | undefined];
  const file = path === "" ? from : resolve(dirname(from), decodeURIComponent(path));
  // A clone of the repository (or its page on GitHub) has nothing outside it.
  if (relative(ROOT, file).startsWith("..")) return "outside the repository";
  if (!existsSync(file)) return "no such file";
  if (anchor === undefined || !file.endsWith(".md")) return undefined;
  return anchorsOf(file).has(anchor) ? undefined : `no heading #${anchor}`;
}

/** Whether a link's target is in the package: a packed file, or a folder holding one. */
function packed(packedSet: ReadonlySet<string>, { from, target }: Link): boolean {
  const path = target.split("#", 1)[0]!;
  if (path === "") return true;
  const file = relative(ROOT, resolve(dirname(from), decodeURIComponent(path))).replace(/\\/g, "/");
  return packedSet.has(file) || [...packedSet].some((f) => f.startsWith(`${file}/`));
}

describe("documentation links", () => {
  const files = markdownFiles(ROOT);

  it("finds the docs it checks", () => {
    const names = files.map((f) => relative(ROOT, f));
    expect(names).toContain("README.md");
    expect(names).toContain(join("docs", "strategies.md"));
  });

  it("every relative link resolves to a file and an anchor that exist", () => {
    const links = files.flatMap(relativeLinks);
    expect(links.length).toBeGreaterThan(50);
    const broken = links.flatMap((l) => {
      const p = problem(l);
      return p ? [`${relative(ROOT, l.from)}: (${l.target}) ${p}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it("catches a link to a heading that does not exist", () => {
    const readme = join(ROOT, "README.md");
    expect(problem({ from: readme, target: "docs/strategies.md#calibrated" })).toBe(
      "no heading #calibrated",
    );
    expect(
      problem({
        from: readme,
        target: "docs/strategies.md#calibrated-estimates-that-keep-a-promise",
      }),
    ).toBeUndefined();
    expect(problem({ from: readme, target: "docs/nothing.md" })).toBe("no such file");
    expect(problem({ from: readme, target: "../shared/docs/interface.md" })).toBe(
      "outside the repository",
    );
  });

  it("every relative link of a Markdown file the package ships points into the package", () => {
    const shipped = new Set(packedFiles().keys());
    expect(shipped).toContain("README.md");
    const links = files.filter((f) => shipped.has(relative(ROOT, f))).flatMap(relativeLinks);
    expect(links.length).toBeGreaterThan(50);
    const missing = links.flatMap((l) =>
      packed(shipped, l) ? [] : [`${relative(ROOT, l.from)}: (${l.target}) not in the package`],
    );
    expect(missing).toEqual([]);
    // The check itself: a checkout's file is not in the package, a shipped one and a folder are.
    const operations = join(ROOT, "docs", "operations.md");
    expect(packed(shipped, { from: operations, target: "../compose.yaml" })).toBe(false);
    expect(packed(shipped, { from: operations, target: "../test/fixtures/hand.ndjson" })).toBe(
      false,
    );
    expect(packed(shipped, { from: operations, target: "http.md#errors" })).toBe(true);
    expect(packed(shipped, { from: operations, target: "../examples/" })).toBe(true);
  });
});
