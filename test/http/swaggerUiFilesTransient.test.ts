// A read of an explorer file that fails for a passing reason (the process out of file
// descriptors) is tried again on the next request, not kept for the life of the process.
import { describe, expect, it, vi } from "vitest";

const reads = vi.hoisted(() => ({ failNext: 1, count: 0 }));

vi.mock("node:fs", async (original) => {
  const fs = await original<typeof import("node:fs")>();
  return {
    ...fs,
    readFileSync: ((...args: Parameters<typeof fs.readFileSync>) => {
      reads.count++;
      if (reads.failNext > 0) {
        reads.failNext--;
        throw Object.assign(new Error("EMFILE: too many open files"), { code: "EMFILE" });
      }
      return fs.readFileSync(...args);
    }) as typeof fs.readFileSync,
  };
});

describe("swaggerUiFiles: a read that failed for a passing reason", () => {
  it("throws that once, then reads the file on the next request and keeps it", async () => {
    const { swaggerUiFiles } = await import("../../src/http/swaggerUiFiles.js");
    const files = swaggerUiFiles() as Record<string, () => Uint8Array>;
    expect(() => files["swagger-ui.css"]!()).toThrow(/EMFILE/);
    const bytes = files["swagger-ui.css"]!();
    expect(bytes.length).toBeGreaterThan(10_000);
    expect(files["swagger-ui.css"]!()).toBe(bytes);
    expect(reads.count).toBe(2);
  });
});
