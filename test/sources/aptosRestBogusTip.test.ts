import { describe, expect, it } from "vitest";
import { describeAptosRestEvent } from "../../src/sources/aptosRest.js";
import { followScripted, until } from "./followHelpers.js";
import { block, gasSchedule, heightOf, json, ledger } from "./scriptedNode.js";

/**
 * A node whose chain is at `tip()` (blocks 1..tip, the rest 404) and whose first `bogus` ledger
 * answers claim the tip is `claimed` instead.
 */
function node(tip: () => number, claimed: number, bogus = 1) {
  let told = 0;
  return async (input: string | URL | Request) => {
    const url = new URL(String(input));
    if (url.pathname === "/v1") return ledger(told++ < bogus ? claimed : tip());
    const h = heightOf(url);
    if (h === undefined) return gasSchedule();
    return h <= tip() ? block(h, 1, 10 * h) : json(404, { error_code: "block_not_found" });
  };
}

describe("aptosRest: a bogus tip before the first block", () => {
  it("plans the backfill again from the next ledger info instead of waiting for heights nobody made", async () => {
    // The first ledger answer says 10^12; the chain is at 30, and grows.
    let tip = 30;
    const { events, heights, sub } = followScripted(
      node(() => tip, 1e12),
      { startHeight: undefined, backfillBlocks: 10 },
    );
    try {
      await until(() => expect(heights).toHaveLength(10));
      expect(heights).toEqual(Array.from({ length: 10 }, (_, i) => BigInt(21 + i)));
      tip = 35;
      await until(() => expect(heights.at(-1)).toBe(35n));
      const starts = events.filter((e) => e.type === "started");
      expect(starts.map((e) => [e.tip, e.from])).toEqual([
        [1_000_000_000_000n, 999_999_999_991n],
        [30n, 21n],
      ]);
      expect(describeAptosRestEvent(starts[1]!)).toBe(
        "following chain 4 at http://node.invalid: tip 30, oldest 0, starting at 21",
      );
      // Nothing claims a block was read above the chain, or that it caught up up there.
      expect(events.filter((e) => e.type === "tip_behind")).toEqual([]);
      const caughtUp = events.flatMap((e) => (e.type === "caught_up" ? [e.height] : []));
      expect(caughtUp.every((h) => h <= 35n)).toBe(true);
    } finally {
      sub.unsubscribe();
    }
  });

  it("does the same when the bogus tip is met on the ledger read after the 404, not on the first", async () => {
    // Two bogus answers: the first ledger read and the one right after the 404.
    const { events, heights, sub } = followScripted(
      node(() => 30, 5_000, 2),
      { startHeight: undefined, backfillBlocks: 10 },
    );
    try {
      await until(() => expect(heights).toHaveLength(10));
      expect(heights[0]).toBe(21n);
      expect(events.filter((e) => e.type === "tip_behind")).toEqual([]);
      // The 404 at 4,991 is not "caught up at 4,990": nothing was read up there.
      const caughtUp = events.flatMap((e) => (e.type === "caught_up" ? [e.height] : []));
      expect(caughtUp.every((h) => h <= 30n)).toBe(true);
    } finally {
      sub.unsubscribe();
    }
  });

  it("waits for an explicit startHeight above the tip: the caller's choice", async () => {
    let tip = 30;
    const { events, heights, sub } = followScripted(
      node(() => tip, 30),
      { startHeight: 40 },
    );
    try {
      await until(() =>
        expect(events.filter((e) => e.type === "caught_up").length).toBeGreaterThan(0),
      );
      expect(heights).toEqual([]);
      tip = 42;
      await until(() => expect(heights).toEqual([40n, 41n, 42n]));
      expect(events.filter((e) => e.type === "started")).toHaveLength(1);
    } finally {
      sub.unsubscribe();
    }
  });

  it("once a block was read, a tip below it is a node behind (tip_behind), not a new plan", async () => {
    let tip = 30;
    let lagging = false;
    const script = node(() => tip, 30);
    const fetch = async (input: string | URL | Request) => {
      const url = new URL(String(input));
      if (lagging && url.pathname === "/v1") return ledger(10);
      return script(input);
    };
    const { events, heights, sub } = followScripted(fetch, {
      startHeight: undefined,
      backfillBlocks: 10,
      unreachableAfter: 2,
    });
    try {
      await until(() => expect(heights).toHaveLength(10));
      lagging = true;
      await until(() =>
        expect(events.filter((e) => e.type === "tip_behind")).toEqual([
          { type: "tip_behind", height: 30n, tip: 10n },
        ]),
      );
      expect(events.filter((e) => e.type === "started")).toHaveLength(1);
      lagging = false;
      tip = 32;
      await until(() => expect(heights.at(-1)).toBe(32n));
      expect(heights).toEqual(Array.from({ length: 12 }, (_, i) => BigInt(21 + i)));
    } finally {
      sub.unsubscribe();
    }
  });
});
