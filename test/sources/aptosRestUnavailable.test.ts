import { describe, expect, it } from "vitest";
import { NOT_FOUND_RETRIES } from "../../src/sources/aptosRest/fetchCompleteBlock.js";
import { describeAptosRestEvent } from "../../src/sources/aptosRest.js";
import { followScripted, until } from "./followHelpers.js";
import { block, gasSchedule, heightOf, json, ledger } from "./scriptedNode.js";

/**
 * The source on a node whose ledger says 20 while block 11 is answered `status` until `healed`,
 * with a clock the test moves: how many times block 11 was refused, and the events.
 */
function refusingNode(status: 404 | 410) {
  const state = { clock: 1_000_000, refusals: 0, healed: false };
  const fetch = async (input: string | URL | Request) => {
    const url = new URL(String(input));
    if (url.pathname === "/v1") return ledger(20);
    const h = heightOf(url);
    if (h === undefined) return gasSchedule();
    if (h === 11 && !state.healed) {
      state.refusals++;
      return json(status, { error_code: status === 404 ? "block_not_found" : "block_pruned" });
    }
    return block(h, 1, 10 * h);
  };
  const { events, heights, sub } = followScripted(fetch, { now: () => state.clock });
  const told = () => events.filter((e) => e.type === "block_unavailable");
  /**
   * Let the source ask for block 11 a few more times: twice over what it takes to count one
   * refusal (a 404 is asked again NOT_FOUND_RETRIES times first).
   */
  const refusedAgain = async (times = 2 * (NOT_FOUND_RETRIES + 1)) => {
    const target = state.refusals + times;
    await until(() => expect(state.refusals).toBeGreaterThanOrEqual(target));
  };
  return { state, events, heights, sub, told, refusedAgain };
}

describe("aptosRest: a next block the node keeps refusing", () => {
  for (const status of [404, 410] as const)
    it(`tells a ${status} that lasts 30 s, then once per 30 s, and goes on when it clears`, async () => {
      const node = refusingNode(status);
      try {
        await node.refusedAgain();
        node.state.clock += 29_000;
        await node.refusedAgain();
        expect(node.told()).toEqual([]);
        node.state.clock += 2_000;
        await node.refusedAgain();
        expect(node.told()).toEqual([
          { type: "block_unavailable", height: 11n, status, forMs: 31_000, tip: 20n },
        ]);
        expect(describeAptosRestEvent(node.told()[0]!)).toMatch(
          new RegExp(`^block 11: ${status} for 31 s while the ledger is at 20: `),
        );
        node.state.clock += 10_000;
        await node.refusedAgain();
        expect(node.told()).toHaveLength(1);
        node.state.clock += 20_000;
        await node.refusedAgain();
        expect(node.told().map((e) => (e as { forMs: number }).forMs)).toEqual([31_000, 61_000]);
        node.state.healed = true;
        await until(() => expect(node.heights).toHaveLength(20));
        expect(node.heights[10]).toBe(11n);
      } finally {
        node.sub.unsubscribe();
      }
    });
});
