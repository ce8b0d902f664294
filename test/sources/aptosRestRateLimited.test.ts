import { describe, expect, it } from "vitest";
import { logAptosRestEvent } from "../../src/cli/logAptosRestEvent.js";
import { describeAptosRestEvent, SourceRequestError } from "../../src/sources/aptosRest.js";
import { followScripted, until } from "./followHelpers.js";
import { block, gasSchedule, heightOf, json, ledger } from "./scriptedNode.js";

describe("aptosRest: a node that rate-limits", () => {
  it("tells it at the first 429 with Retry-After, before unreachable, then at most once per 30 s", async () => {
    const state = { clock: 1_000_000, limited: false, refused: 0 };
    const fetch = async (input: string | URL | Request) => {
      if (state.limited) {
        state.refused++;
        return json(429, { message: "rate limited" }, { "retry-after": "60" });
      }
      const url = new URL(String(input));
      if (url.pathname === "/v1") return ledger(5);
      const h = heightOf(url);
      return h === undefined ? gasSchedule() : block(h, 1, 10 * h);
    };
    const { events, heights, sub } = followScripted(fetch, { now: () => state.clock });
    const told = () => events.filter((e) => e.type === "rate_limited");
    const refusedAgain = async () => {
      const target = state.refused + 3;
      await until(() => expect(state.refused).toBeGreaterThanOrEqual(target));
    };
    try {
      await until(() => expect(heights).toHaveLength(5));
      state.limited = true;
      await until(() => expect(events.some((e) => e.type === "unreachable")).toBe(true));
      const url = "http://node.invalid/v1";
      // maxRetryAfterMs (50 in these tests) cuts the 60 s asked for.
      expect(told()).toEqual([{ type: "rate_limited", url, status: 429, delayMs: 50 }]);
      const first429 = events.findIndex(
        (e) =>
          e.type === "retrying" && e.error instanceof SourceRequestError && e.error.status === 429,
      );
      expect(events.indexOf(told()[0]!)).toBe(first429 - 1);
      expect(events.indexOf(told()[0]!)).toBeLessThan(
        events.findIndex((e) => e.type === "unreachable"),
      );
      expect(describeAptosRestEvent(told()[0]!)).toBe(
        "the node is rate-limiting: HTTP 429 with Retry-After from http://node.invalid/v1; waiting 50 ms before asking again (no new block meanwhile)",
      );
      await refusedAgain();
      expect(told()).toHaveLength(1);
      state.clock += 30_000;
      await refusedAgain();
      expect(told()).toHaveLength(2);
    } finally {
      sub.unsubscribe();
    }
  });

  it("is logged at warn", () => {
    const lines: [string, string][] = [];
    const line = (level: string) => (_fields: object, message: string) => {
      lines.push([level, message]);
    };
    const log = {
      error: line("error"),
      warn: line("warn"),
      info: line("info"),
      debug: line("debug"),
    };
    logAptosRestEvent(log)({
      type: "rate_limited",
      url: "http://n/v1",
      status: 503,
      delayMs: 60_000,
    });
    expect(lines).toEqual([
      [
        "warn",
        "the node is rate-limiting: HTTP 503 with Retry-After from http://n/v1; waiting 60000 ms before asking again (no new block meanwhile)",
      ],
    ]);
  });
});
