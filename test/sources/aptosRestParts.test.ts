import { gzipSync } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import { createBlockBudget } from "../../src/sources/aptosRest/createBlockBudget.js";
import { createHedgeDelay } from "../../src/sources/aptosRest/createHedgeDelay.js";
import { createSlots } from "../../src/sources/aptosRest/createSlots.js";
import { discardBody } from "../../src/sources/aptosRest/discardBody.js";
import { hedged } from "../../src/sources/aptosRest/hedged.js";
import { readBody } from "../../src/sources/aptosRest/readBody.js";

/** A body stream of `count` chunks of `size` bytes, counting how many chunks were pulled. */
function chunked(count: number, size: number, fill = 0x61) {
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled === count) controller.close();
      else {
        state.pulled++;
        controller.enqueue(new Uint8Array(size).fill(fill));
      }
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

describe("readBody", () => {
  it("reads a body within the cap as text, multi-byte characters across chunks included", async () => {
    const bytes = new TextEncoder().encode('{"x":"é€😀"}');
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 3) c.enqueue(bytes.subarray(i, i + 3));
        c.close();
      },
    });
    expect(await readBody(new Response(stream), 1024)).toEqual({ ok: true, text: '{"x":"é€😀"}' });
    expect(await readBody(new Response(null), 1024)).toEqual({ ok: true, text: "" });
  });

  it("drops a leading byte order mark (a gateway's), as fetch's text() does, and only a leading one", async () => {
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"x":"\ufeff"}')]);
    expect(await readBody(new Response(body), 1024)).toEqual({ ok: true, text: '{"x":"\ufeff"}' });
  });

  it("stops at the cap without reading the rest, and cancels the stream", async () => {
    const { stream, state } = chunked(1000, 65_536);
    const r = await readBody(new Response(stream), 1_000_000);
    expect(r).toEqual({ ok: false, bytesRead: 16 * 65_536 });
    expect(state.pulled).toBeLessThan(20);
    expect(state.cancelled).toBe(true);
  });

  it("refuses a declared Content-Length above the cap before reading", async () => {
    const { stream, state } = chunked(10, 1000);
    const res = new Response(stream, { headers: { "content-length": "10000" } });
    expect(await readBody(res, 9999)).toEqual({ ok: false, bytesRead: 0 });
    expect(state.pulled).toBeLessThanOrEqual(1);
  });

  it("reads a body of declared length into one buffer, and refuses more bytes than declared", async () => {
    const exact = chunked(4, 1000);
    const res = new Response(exact.stream, { headers: { "content-length": "4000" } });
    expect(await readBody(res, 10_000)).toEqual({ ok: true, text: "a".repeat(4000) });
    const longer = chunked(4, 1000);
    const lying = new Response(longer.stream, { headers: { "content-length": "2500" } });
    expect(await readBody(lying, 10_000)).toEqual({ ok: false, bytesRead: 3000 });
    expect(longer.state.cancelled).toBe(true);
  });

  it("counts inflated bytes: a gzip bomb is stopped at the cap", async () => {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const inflated = new Response(
      new Blob([bomb]).stream().pipeThrough(new DecompressionStream("gzip")),
    );
    const r = await readBody(inflated, 1024 * 1024);
    expect(r.ok).toBe(false);
    expect((r as { bytesRead: number }).bytesRead).toBeLessThan(2 * 1024 * 1024);
  });

  it("discardBody drains a small body and cancels a big one", async () => {
    const small = chunked(3, 100);
    await discardBody(new Response(small.stream));
    expect(small.state).toEqual({ pulled: 3, cancelled: false });
    const big = chunked(1000, 65_536);
    await discardBody(new Response(big.stream));
    expect(big.state.cancelled).toBe(true);
    expect(big.state.pulled).toBeLessThan(5);
  });
});

describe("createSlots", () => {
  it("gives at most `size` places, then serves waiters by lowest priority, ties in order", async () => {
    const slots = createSlots(2);
    const signal = new AbortController().signal;
    const a = await slots.acquire(5n, signal);
    await slots.acquire(9n, signal);
    const order: string[] = [];
    const wait = (name: string, p: bigint) =>
      slots.acquire(p, signal).then((release) => {
        order.push(name);
        return release;
      });
    const c = wait("c@7", 7n);
    const d = wait("d@3", 3n);
    const e = wait("e@7", 7n);
    const urgent = wait("urgent", -1n);
    expect(slots).toMatchObject({ taken: 2, waiting: 4 });
    a();
    a(); // a second call gives nothing back twice
    (await urgent)();
    (await d)();
    (await c)();
    await e;
    expect(order).toEqual(["urgent", "d@3", "c@7", "e@7"]);
    expect(slots).toMatchObject({ taken: 2, waiting: 0 });
  });

  it("drops a waiter whose signal aborts", async () => {
    const slots = createSlots(1);
    const release = await slots.acquire(0n, new AbortController().signal);
    const gone = new AbortController();
    const dropped = slots.acquire(1n, gone.signal);
    const kept = slots.acquire(2n, new AbortController().signal);
    gone.abort(new Error("cancelled"));
    await expect(dropped).rejects.toThrow("cancelled");
    expect(slots.waiting).toBe(1);
    release();
    await kept;
    expect(slots.taken).toBe(1);
  });
});

describe("hedged", () => {
  const never = new AbortController().signal;
  /**
   * Tries answering `value` after `ms` (headers at once when `headers`, or after `headersMs`),
   * aborted by their signal.
   */
  function tries(
    plan: { ms: number; value: string; headers?: boolean; headersMs?: number }[],
    aborted: number[] = [],
  ) {
    let n = 0;
    return (signal: AbortSignal, onHeaders: () => void) => {
      const i = n++;
      const step = plan[Math.min(i, plan.length - 1)]!;
      if (step.headers) onHeaders();
      const h = step.headersMs === undefined ? undefined : setTimeout(onHeaders, step.headersMs);
      return new Promise<string>((resolve, reject) => {
        const t = setTimeout(() => resolve(step.value), step.ms);
        signal.addEventListener("abort", () => {
          clearTimeout(t);
          clearTimeout(h);
          aborted.push(i);
          reject(signal.reason);
        });
      });
    };
  }
  const ok = (v: string) => v.startsWith("ok");

  it("sends a second try when the first has no answer in time; the first answer wins", async () => {
    const aborted: number[] = [];
    const run = tries(
      [
        { ms: 5_000, value: "ok-slow" },
        { ms: 5, value: "ok-hedge" },
      ],
      aborted,
    );
    expect(await hedged(run, ok, 20, never)).toEqual({ result: "ok-hedge", hedged: true });
    expect(aborted).toEqual([0]);
  });

  it("does not hedge a try whose headers came in time, nor one that failed at once", async () => {
    const run = tries([{ ms: 60, value: "ok", headers: true }], []);
    expect(await hedged(run, ok, 10, never)).toEqual({ result: "ok", hedged: false });
    const failing = tries([{ ms: 1, value: "failed" }], []);
    expect(await hedged(failing, ok, 50, never)).toEqual({ result: "failed", hedged: false });
  });

  it("sends a second try when the first's body has not come bodyDelayMs after its headers", async () => {
    const aborted: number[] = [];
    const run = tries(
      [
        { ms: 5_000, value: "ok-trickling", headers: true },
        { ms: 5, value: "ok-hedge" },
      ],
      aborted,
    );
    expect(await hedged(run, ok, 10, never, 30)).toEqual({ result: "ok-hedge", hedged: true });
    expect(aborted).toEqual([0]);
    // A body that comes in time is not hedged, nor is any body without bodyDelayMs.
    const quick = tries([{ ms: 20, value: "ok", headers: true }]);
    expect(await hedged(quick, ok, 10, never, 200)).toEqual({ result: "ok", hedged: false });
    const slow = tries([{ ms: 60, value: "ok", headers: true }]);
    expect(await hedged(slow, ok, 10, never)).toEqual({ result: "ok", hedged: false });
  });

  it("leaves no timer behind when a try reports its headers at once", async () => {
    vi.useFakeTimers();
    try {
      const run = (_signal: AbortSignal, onHeaders: () => void) => {
        onHeaders();
        return new Promise<string>((resolve) => setTimeout(() => resolve("ok"), 5));
      };
      const p = hedged(run, ok, 10, never, 3_000);
      await vi.advanceTimersByTimeAsync(5);
      expect(await p).toEqual({ result: "ok", hedged: false });
      // The body's timer would have held a process open for 3 s after the answer.
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("waits for the other try when one fails, and returns the later failure when both do", async () => {
    const run = tries(
      [
        { ms: 40, value: "failed-first" },
        { ms: 60, value: "ok-second" },
      ],
      [],
    );
    expect(await hedged(run, ok, 10, never)).toEqual({ result: "ok-second", hedged: true });
    const both = tries(
      [
        { ms: 40, value: "failed-first" },
        { ms: 60, value: "failed-second" },
      ],
      [],
    );
    expect(await hedged(both, ok, 10, never)).toEqual({ result: "failed-second", hedged: true });
  });

  it("gives up on the straggler when the second try fails", async () => {
    const aborted: number[] = [];
    const run = tries(
      [
        { ms: 5_000, value: "ok-stalled" },
        { ms: 5, value: "failed-hedge" },
      ],
      aborted,
    );
    expect(await hedged(run, ok, 10, never)).toEqual({ result: "failed-hedge", hedged: true });
    expect(aborted).toEqual([0]);
  });

  it("keeps waiting for the first try when the second fails after the first got its headers", async () => {
    const aborted: number[] = [];
    const run = tries(
      [
        { ms: 120, headersMs: 30, value: "ok-late" },
        { ms: 60, value: "failed-hedge" },
      ],
      aborted,
    );
    expect(await hedged(run, ok, 10, never)).toEqual({ result: "ok-late", hedged: true });
    expect(aborted).toEqual([]);
  });

  it("settles when the first try fails after the hedge it was waiting on already failed", async () => {
    // The first try gets its headers (so the hedge's failure waits for it), then fails itself:
    // nothing is left to wait for. (This once never settled, and a live-node source stopped.)
    const run = tries([
      { ms: 400, headersMs: 20, value: "failed-first" },
      { ms: 200, value: "failed-hedge" },
    ]);
    expect(await hedged(run, ok, 10, never)).toEqual({ result: "failed-first", hedged: true });
  });

  it("rejects with the parent's reason when it aborts, aborting every try", async () => {
    const aborted: number[] = [];
    const parent = new AbortController();
    const run = tries([{ ms: 5_000, value: "ok" }], aborted);
    const p = hedged(run, ok, 10, parent.signal);
    await new Promise((r) => setTimeout(r, 30));
    parent.abort(new Error("stop"));
    await expect(p).rejects.toThrow("stop");
    expect(aborted.sort()).toEqual([0, 1]);
  });
});

describe("createBlockBudget", () => {
  it("admits fetches while the held blocks and one block per fetch fit, the next block always", async () => {
    let next = 10n;
    // Room for 4 blocks of up to 100 transactions.
    const budget = createBlockBudget(400, 100, () => next);
    const admitted: bigint[] = [];
    const ask = (h: bigint) => budget.admit(h).then(() => admitted.push(h));
    for (let h = 10n; h < 20n; h++) void ask(h);
    await Promise.resolve();
    expect(admitted).toEqual([10n, 11n, 12n, 13n]);
    // 11 and 12 finish small: their reservations shrink to what they hold (5 each), room for 14.
    budget.finished(11n, 5);
    budget.finished(12n, 5);
    await Promise.resolve();
    expect(admitted).toEqual([10n, 11n, 12n, 13n, 14n]);
    expect(budget.usage()).toEqual({ held: 10, fetching: 3 });
    // 13 and 14 finish huge: 15 does not fit while 10, the one everything waits for, is out.
    budget.finished(13n, 100);
    budget.finished(14n, 100);
    await Promise.resolve();
    expect(admitted).toHaveLength(5);
    expect(budget.usage()).toEqual({ held: 210, fetching: 1 });
    budget.finished(10n, 3);
    await Promise.resolve();
    expect(admitted).toHaveLength(6);
    // 10..14 are emitted: what they held is free, and the waiters go in height order.
    for (const h of [10n, 11n, 12n, 13n, 14n]) {
      next = h + 1n;
      budget.emitted(h);
    }
    await Promise.resolve();
    expect(admitted).toEqual([10n, 11n, 12n, 13n, 14n, 15n, 16n, 17n, 18n]);
    expect(budget.usage()).toEqual({ held: 0, fetching: 4 });
  });

  it("always admits the next block to emit, and forgets its waiters on reset", async () => {
    const next = 1n;
    const budget = createBlockBudget(100, 100, () => next);
    const admitted: bigint[] = [];
    void budget.admit(2n).then(() => admitted.push(2n));
    void budget.admit(3n).then(() => admitted.push(3n));
    await Promise.resolve();
    expect(admitted).toEqual([2n]);
    void budget.admit(1n).then(() => admitted.push(1n));
    await Promise.resolve();
    expect(admitted).toEqual([2n, 1n]);
    budget.reset();
    expect(budget.usage()).toEqual({ held: 0, fetching: 0 });
    budget.finished(2n, 1); // a fetch of the cleared window: not counted again
    await Promise.resolve();
    expect(admitted).toEqual([2n, 1n]);
  });
});

describe("createHedgeDelay", () => {
  it("is the floor until answers get slow, then 4x their median, capped at the timeout", () => {
    const h = createHedgeDelay(500, 10_000);
    expect(h.delay()).toBe(500);
    for (let i = 0; i < 32; i++) h.record(20);
    expect(h.delay()).toBe(500);
    for (let i = 0; i < 17; i++) h.record(300);
    expect(h.delay()).toBe(1200);
    for (let i = 0; i < 32; i++) h.record(9_000);
    expect(h.delay()).toBe(10_000);
  });
});
