import { firstValueFrom, take, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { arrivalOf } from "../../src/core/blockArrival.js";
import { aptosRest, InvalidResponseError } from "../../src/sources/aptosRest.js";
import { fast, followScripted, retries, until } from "./followHelpers.js";
import { block, gasSchedule, heightOf, json, ledger } from "./scriptedNode.js";

/**
 * A node that has blocks 1-20 (`good`); then (`hostile`) answers 410 above 20 with a ledger info
 * claiming tip `tip` and oldest height `oldest`; then (`healed`) has blocks 1-30.
 */
function prunedOnce(tip: number, oldest: number) {
  const node = {
    mode: "good" as "good" | "hostile" | "healed",
    fetch: async (input: string | URL | Request) => {
      const url = new URL(String(input));
      if (url.pathname === "/v1")
        return node.mode === "hostile"
          ? ledger(tip, oldest)
          : ledger(node.mode === "good" ? 20 : 30);
      const h = heightOf(url);
      if (h === undefined) return gasSchedule();
      if (node.mode === "hostile" && h > 20) return json(410, { error_code: "block_pruned" });
      return h <= (node.mode === "good" ? 20 : 30)
        ? block(h, 1, 10 * h)
        : json(404, { error_code: "block_not_found" });
    },
  };
  return node;
}

describe("aptosRest: a 410 with an oldest height nobody made", () => {
  it("refuses to skip more than 10^6 heights past the highest one known, retries, and goes on", async () => {
    // Blocks 1-20 are read; then for a while the node answers 410 above 20 and its ledger info
    // says block_height = oldest_block_height = 20 + 10^9; then it is good again, with tip 30.
    const node = prunedOnce(20 + 1e9, 20 + 1e9);
    const { events, heights, sub } = followScripted(node.fetch);
    const refused = () =>
      retries(events).filter(
        (e) =>
          e.error instanceof InvalidResponseError &&
          e.error.issues[0]?.path === "oldest_block_height",
      );
    try {
      await until(() => expect(heights.length).toBe(20));
      node.mode = "hostile";
      await until(() => expect(refused().length).toBeGreaterThanOrEqual(3));
      expect(refused()[0]!.error.shortMessage).toBe(
        "invalid response from http://node.invalid/v1: oldest_block_height: must be at most 1000020 to skip pruned heights to (the highest height known to exist, plus 1000000 or 1000 a second since it was learnt), got 1000000020: a node cannot have pruned heights not made yet",
      );
      node.mode = "healed";
      await until(() => expect(heights.length).toBe(30));
      expect(heights).toEqual(Array.from({ length: 30 }, (_, i) => BigInt(i + 1)));
      expect(events.filter((e) => e.type === "pruned_skip" || e.type === "tip_behind")).toEqual([]);
    } finally {
      sub.unsubscribe();
    }
  });

  it("undoes a skip within the bound that the node's next tip disowns, and reads on from where it left", async () => {
    // Blocks 1-20 are read; then, briefly, a 410 above 20 and a ledger info claiming tip and
    // oldest about 999,000 heights ahead (within the 10^6 bound); then the truth, tip 30.
    const node = prunedOnce(20 + 999_000, 20 + 998_000);
    const { events, heights, sub } = followScripted(node.fetch);
    try {
      await until(() => expect(heights.length).toBe(20));
      node.mode = "hostile";
      await until(() => expect(events.some((e) => e.type === "pruned_skip")).toBe(true));
      node.mode = "healed";
      await until(() => expect(heights.length).toBe(30));
      expect(heights).toEqual(Array.from({ length: 30 }, (_, i) => BigInt(i + 1)));
      expect(events.find((e) => e.type === "pruned_skip")).toMatchObject({
        from: 21n,
        to: BigInt(20 + 998_000),
      });
      // Told: the source starts again from where the skip left.
      expect(events.filter((e) => e.type === "started").at(-1)).toMatchObject({ from: 21n });
    } finally {
      sub.unsubscribe();
    }
  });

  it("follows a node that really pruned that far after a long enough outage (1,000 heights a second)", async () => {
    // Blocks 1-20, then 12 days pass (10^9 heights need 10^6 s at 1,000 a second) and the node
    // kept only its newest block, 10^9 + 20.
    const far = 20 + 1e9;
    let pruned = false;
    let clock = 1_000_000;
    const fetch = async (input: string | URL | Request) => {
      const url = new URL(String(input));
      if (url.pathname === "/v1") return pruned ? ledger(far, far) : ledger(20);
      const h = heightOf(url);
      if (h === undefined) return gasSchedule();
      if (pruned)
        return h === far ? block(h, 1, 10 * h) : json(410, { error_code: "block_pruned" });
      return h <= 20 ? block(h, 1, 10 * h) : json(404, { error_code: "block_not_found" });
    };
    const { events, heights, sub } = followScripted(fetch, { now: () => clock });
    try {
      await until(() => expect(heights.length).toBe(20));
      clock += 12 * 86_400_000;
      pruned = true;
      await until(() => expect(heights.at(-1)).toBe(BigInt(far)));
      expect(events.find((e) => e.type === "pruned_skip")).toMatchObject({
        from: 21n,
        to: BigInt(far),
      });
    } finally {
      sub.unsubscribe();
    }
  });
});

/**
 * Blocks 1..10 of a node whose tip is at 2,000,000 µs and whose blocks are made at 1,000,000 +
 * height µs, but for the block times `timeOf` gives (undefined: the block's own).
 */
async function blocksWithTimes(timeOf: (height: number) => string | undefined) {
  const fetch = async (input: string | URL | Request) => {
    const url = new URL(String(input));
    if (url.pathname === "/v1") {
      const body = (await ledger(10).json()) as Record<string, unknown>;
      return json(200, { ...body, ledger_timestamp: "2000000" });
    }
    const h = heightOf(url);
    if (h === undefined) return gasSchedule();
    if (h > 10) return json(404, { error_code: "block_not_found" });
    const body = (await block(h, 1, 10 * h).json()) as Record<string, unknown>;
    return json(200, { ...body, block_timestamp: timeOf(h) ?? body.block_timestamp });
  };
  const got = await firstValueFrom(
    aptosRest("http://node.invalid", { ...fast, startHeight: 1, fetch }).pipe(take(10), toArray()),
  );
  expect(got.map((b) => b.height)).toEqual(Array.from({ length: 10 }, (_, i) => BigInt(i + 1)));
  return got;
}

describe("aptosRest: block times that go back", () => {
  it("a block dated before the one before it is not dated for staleness (it arrived when read)", async () => {
    // Block 6 says 1970 (1,000 µs): dated by it, it would look about 2 s older than its
    // neighbours.
    const got = await blocksWithTimes((h) => (h === 6 ? "1000" : undefined));
    // Blocks 5 and 7 are dated from their times, 2 µs apart; block 6 is not dated at all.
    expect(arrivalOf(got[4]!)).toBeDefined();
    expect(arrivalOf(got[6]!)).toBeDefined();
    expect(arrivalOf(got[5]!)).toBeUndefined();
  });

  it("a block made after the tip does not stop the dating of the blocks after it", async () => {
    // Blocks 1 and 4 say an hour after the tip: taken as the newest block time, they would have
    // left every block after them undated (served as current, a backfill included) for good.
    const hourAhead = String(2_000_000 + 3_600_000_000);
    const got = await blocksWithTimes((h) => (h === 1 || h === 4 ? hourAhead : undefined));
    // Blocks 1 and 4 arrived when read; every other block is dated about 1 s before the tip read.
    expect(arrivalOf(got[0]!)).toBeUndefined();
    expect(arrivalOf(got[3]!)).toBeUndefined();
    for (const i of [1, 2, 4, 5, 6, 7, 8, 9]) {
      expect(arrivalOf(got[i]!), `block ${i + 1}`).toBeDefined();
      expect(Date.now() - arrivalOf(got[i]!)!).toBeGreaterThanOrEqual(990);
    }
  });
});
