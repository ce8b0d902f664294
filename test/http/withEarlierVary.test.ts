import { describe, expect, it } from "vitest";
import { withEarlierLists, withEarlierVary } from "../../src/http/withEarlierVary.js";

describe("withEarlierVary: an adapter keeps the Vary the host's response already holds", () => {
  const ours = Object.freeze({ "Content-Type": "application/json", Vary: "Accept" });

  it("adds the earlier names after its own, once each, whatever their case", () => {
    expect(withEarlierVary(ours, "Origin")).toEqual({ ...ours, Vary: "Accept, Origin" });
    expect(withEarlierVary(ours, "accept, Accept-Encoding,origin")).toEqual({
      ...ours,
      Vary: "Accept, Accept-Encoding, origin",
    });
    // node's getHeader returns what was set: a list when set as one.
    expect(withEarlierVary(ours, ["Origin", "Accept-Language"]).Vary).toBe(
      "Accept, Origin, Accept-Language",
    );
  });

  it("is * when either side is *", () => {
    expect(withEarlierVary(ours, "*").Vary).toBe("*");
    expect(withEarlierVary({ Vary: "*" }, "Origin").Vary).toBe("*");
  });

  it("returns the answer's own headers when there is nothing to add (no copy)", () => {
    for (const earlier of [undefined, "", " , ", "ACCEPT", 42])
      expect(withEarlierVary(ours, earlier)).toBe(ours);
    const none = Object.freeze({ "Content-Type": "text/plain" });
    expect(withEarlierVary(none, "Origin")).toBe(none);
  });
});

describe("withEarlierLists: an adapter keeps the list-valued headers the host's response holds", () => {
  const ours = Object.freeze({
    Vary: "Accept",
    "Access-Control-Expose-Headers": "X-Aptos-Epoch, X-Aptos-Chain-Id",
  });
  const earlier: Record<string, unknown> = {
    Vary: "Origin",
    "Access-Control-Expose-Headers": "X-Request-Id, x-aptos-epoch",
  };

  it("adds the earlier names of Vary and Access-Control-Expose-Headers after its own", () => {
    expect(withEarlierLists(ours, (name) => earlier[name])).toEqual({
      Vary: "Accept, Origin",
      "Access-Control-Expose-Headers": "X-Aptos-Epoch, X-Aptos-Chain-Id, X-Request-Id",
    });
  });

  it("asks only for the headers the answer has, and returns them as they are when nothing is added", () => {
    const asked: string[] = [];
    const none = Object.freeze({ "Content-Type": "text/plain" });
    expect(withEarlierLists(none, (name) => asked.push(name))).toBe(none);
    expect(asked).toEqual([]);
    expect(withEarlierLists(ours, () => undefined)).toBe(ours);
    const known: Record<string, string> = {
      Vary: "accept",
      "Access-Control-Expose-Headers": "X-APTOS-EPOCH",
    };
    expect(withEarlierLists(ours, (name) => known[name])).toBe(ours);
  });
});
