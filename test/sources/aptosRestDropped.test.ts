import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { createEpochPrices } from "../../src/sources/aptosRest/createEpochPrices.js";
import type { NodeClient } from "../../src/sources/aptosRest/createNodeClient.js";
import { followScripted, until } from "./followHelpers.js";
import { block, gasSchedule, hang, heightOf, json, ledger } from "./scriptedNode.js";

describe("createEpochPrices: dropped reads", () => {
  it("aborts the reads it drops, and the others with the source", () => {
    const signals = new Map<bigint, AbortSignal>();
    const client = {
      minGasUnitPrice: (version: bigint, signal: AbortSignal) => {
        signals.set(version, signal);
        return hang(signal);
      },
    } as unknown as NodeClient;
    const source = new AbortController();
    const prices = createEpochPrices(client, source.signal);
    prices.prefetch(1n, 10n);
    prices.prefetch(2n, 20n);
    prices.prefetch(3n, 30n);
    prices.retain(new Set([2n]));
    expect([...signals].map(([v, s]) => [v, s.aborted])).toEqual([
      [10n, true],
      [20n, false],
      [30n, true],
    ]);
    source.abort();
    expect(signals.get(20n)!.aborted).toBe(true);
  });

  it("puts one listener on the source's signal, however many reads are under way", () => {
    const signals: AbortSignal[] = [];
    const client = {
      minGasUnitPrice: (_version: bigint, signal: AbortSignal) => {
        signals.push(signal);
        return hang(signal);
      },
    } as unknown as NodeClient;
    const source = new AbortController();
    const prices = createEpochPrices(client, source.signal);
    // An epoch starting every block of the lookahead: node warned of a leak past 10 listeners.
    for (let e = 1n; e <= 40n; e++) prices.prefetch(e, e * 10n);
    expect(getEventListeners(source.signal, "abort")).toHaveLength(1);
    source.abort();
    expect(signals.every((s) => s.aborted)).toBe(true);
  });
});

describe("aptosRest: gas schedule reads of a cleared window", () => {
  it("stops asking for reads it no longer needs, and tells the node is back", async () => {
    // Every block starts an epoch. While block 1 is held, blocks 2-30 come in and the gas
    // schedule of their epochs is read ahead: the node fails those reads for good. Then block 1
    // is answered 404 (ten times: a 404 is asked again a few times before it counts) and the node
    // serves those heights with other epochs and versions (a load balancer now on another
    // node): the reads started ahead are not needed any more.
    let switched = false;
    let refused = 0;
    let poisonedHits = 0;
    let ledgerReads = 0;
    const poisoned = new Set<string>();
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(String(input));
      if (url.pathname === "/v1") {
        ledgerReads++;
        return ledger(30);
      }
      const h = heightOf(url);
      if (h !== undefined) {
        if (h === 1 && refused < 10) {
          if (!switched) await Promise.race([held, hang(init?.signal)]);
          refused++;
          return json(404, { error_code: "block_not_found" });
        }
        return switched ? block(h, 1000 + h, 1_000_000 + 10 * h) : block(h, h, 10 * h);
      }
      const version = url.searchParams.get("ledger_version") ?? "latest";
      if (!switched) poisoned.add(version);
      if (poisoned.has(version)) {
        poisonedHits++;
        return json(500, { message: "injected" });
      }
      return gasSchedule();
    };
    const { events, heights, sub } = followScripted(fetch);
    try {
      await until(() => expect(poisoned.size).toBeGreaterThanOrEqual(20));
      await until(() => expect(events.some((e) => e.type === "unreachable")).toBe(true));
      switched = true;
      release();
      await until(() => expect(heights.length).toBe(30));
      await until(() => expect(events.some((e) => e.type === "recovered")).toBe(true));
      // The reads dropped are asked no more: the count stands still while the tip is polled
      // 20 times, and nothing is retried.
      const hits = poisonedHits;
      const retried = events.filter((e) => e.type === "retrying").length;
      const polls = ledgerReads + 20;
      await until(() => expect(ledgerReads).toBeGreaterThanOrEqual(polls));
      expect(poisonedHits).toBe(hits);
      expect(events.filter((e) => e.type === "retrying").length).toBe(retried);
    } finally {
      sub.unsubscribe();
    }
  });
});
