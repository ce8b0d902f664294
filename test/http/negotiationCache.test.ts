// The estimate route caches the negotiated format by Accept value; a long value is negotiated on
// every request and never kept (workerd passes Accept values of about 256 KiB: 256 distinct ones
// kept pinned about 64 MiB of a Worker isolate). Counted through negotiateFormat's calls.
import { describe, expect, it, vi } from "vitest";
import { negotiateFormat } from "../../src/http/negotiateFormat.js";
import { setup } from "./helpers.js";

vi.mock("../../src/http/negotiateFormat.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/http/negotiateFormat.js")>();
  return { ...actual, negotiateFormat: vi.fn(actual.negotiateFormat) };
});
const negotiate = vi.mocked(negotiateFormat);

/** An Accept value of exactly `length` characters that negotiates BCS. */
const acceptOf = (length: number) => {
  const head = "application/x-bcs;q=0.1, text/";
  return head + "x".repeat(length - head.length);
};

describe("the estimate's Accept cache", () => {
  const s = setup({ maxStalenessMs: false });
  s.blocks(1, 1);
  const contentType = (accept: string) =>
    s.get("/v1/estimate_gas_price", { accept }).headers["Content-Type"];

  it("negotiates a value of up to 1,024 characters once, then answers it from the cache", () => {
    for (const length of [30, 1024]) {
      negotiate.mockClear();
      const accept = acceptOf(length);
      for (let i = 0; i < 3; i++)
        expect(contentType(accept), `${length}`).toBe("application/x-bcs");
      expect(negotiate, `${length}`).toHaveBeenCalledTimes(1);
    }
  });

  it("does not keep a longer value: it is negotiated on every request, with the same answer", () => {
    for (const length of [1025, 250 * 1024]) {
      negotiate.mockClear();
      const accept = acceptOf(length);
      for (let i = 0; i < 3; i++)
        expect(contentType(accept), `${length}`).toBe("application/x-bcs");
      expect(negotiate, `${length}`).toHaveBeenCalledTimes(3);
    }
    expect(contentType(`application/json, ${"x".repeat(4096)}`)).toBe("application/json");
  });
});
