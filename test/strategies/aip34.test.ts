import { describe, expect, it } from "vitest";
import {
  aip34,
  type BlockSampleInput,
  createEngine,
  type GasConfigInput,
} from "../../src/index.js";
import { block, fullBlock, idleBlock } from "../helpers/blocks.js";
import { strategyPropertySuite } from "./propertySuite.js";

/** Feed blocks and return the served estimate as "low/regular/prioritized". */
function estimateAfter(blocks: BlockSampleInput[], config: GasConfigInput = {}) {
  const engine = createEngine({ strategy: aip34(), config });
  for (const b of blocks) engine.ingest(b);
  const e = engine.snapshot()!.estimate!;
  return `${e.deprioritized}/${e.regular}/${e.prioritized}`;
}
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** Windows of one block, newest included: the estimate is exactly the newest block's price. */
const single: GasConfigInput = {
  lowBlockHistory: 1,
  marketBlockHistory: 1,
  aggressiveBlockHistory: 1,
  skipLatestBlock: false,
};

describe("aip34: the AIP-34 examples", () => {
  it("idle chain: 100/100/150", () => {
    expect(estimateAfter(range(1, 40).map((h) => idleBlock(h)))).toBe("100/100/150");
  });
  it("every block full of price-100 transactions: 150/150/300", () => {
    expect(estimateAfter(range(1, 40).map((h) => fullBlock(h, 100)))).toBe("150/150/300");
  });
  it("a mix (every third block idle, the rest full at 100): 100/150/300", () => {
    const blocks = range(1, 60).map((h) => (h % 3 === 0 ? idleBlock(h) : fullBlock(h, 100)));
    expect(estimateAfter(blocks)).toBe("100/150/300");
  });
  it("no block yet usable (only the newest, skipped): the default estimate", () => {
    expect(estimateAfter([fullBlock(1, 5000)])).toBe("100/100/150");
  });
});

describe("aip34: fullness rules a..e", () => {
  const txs = (n: number, price = 200) => Array.from({ length: n }, () => String(price));
  it("(a) one contract for more than half the transactions: not full, even at 250", () => {
    expect(
      estimateAfter(
        [block(1, { gas_unit_prices: txs(250), majority_use_case_fraction: 0.51 })],
        single,
      ),
    ).toBe("100/100/150");
    expect(
      estimateAfter(
        [block(1, { gas_unit_prices: txs(250), majority_use_case_fraction: 0.5 })],
        single,
      ),
    ).toBe("300/300/500");
  });
  it("(a) is off when incorporateReorderingEffects is false", () => {
    const b = block(1, { gas_unit_prices: txs(250), majority_use_case_fraction: 0.9 });
    expect(estimateAfter([b], { ...single, incorporateReorderingEffects: false })).toBe(
      "300/300/500",
    );
  });
  it("(b) fullBlockTxns user transactions: full, before the gas-limit flag", () => {
    expect(
      estimateAfter(
        [block(1, { gas_unit_prices: txs(250), block_gas_limit_reached: false })],
        single,
      ),
    ).toBe("300/300/500");
    expect(estimateAfter([block(1, { gas_unit_prices: txs(249) })], single)).toBe("100/100/150");
    expect(
      estimateAfter([block(1, { gas_unit_prices: txs(3) })], { ...single, fullBlockTxns: 3 }),
    ).toBe("300/300/500");
  });
  it("(c) the block's own gas-limit flag decides, before gas_used", () => {
    expect(
      estimateAfter(
        [block(1, { gas_unit_prices: ["700"], block_gas_limit_reached: true })],
        single,
      ),
    ).toBe("1000/1000/3000");
    const flagFalse = block(1, {
      gas_unit_prices: ["700"],
      block_gas_limit_reached: false,
      block_gas_limit: "10",
      gas_used: ["50"],
    });
    expect(estimateAfter([flagFalse], single)).toBe("100/100/150");
  });
  it("(d) summed gas_used reaching a known block gas limit: full", () => {
    const at = block(1, {
      gas_unit_prices: ["700", "900"],
      block_gas_limit: "100",
      gas_used: ["60", "40"],
    });
    const below = block(1, {
      gas_unit_prices: ["700", "900"],
      block_gas_limit: "100",
      gas_used: ["60", "39"],
    });
    expect(estimateAfter([at], single)).toBe("1000/1000/3000");
    expect(estimateAfter([below], single)).toBe("100/100/150");
  });
  it("(e) nothing known: not full", () => {
    expect(estimateAfter([block(1, { gas_unit_prices: ["700", "900"] })], single)).toBe(
      "100/100/150",
    );
  });
  it("a full block with no user transaction counts as the minimum price", () => {
    expect(
      estimateAfter([block(1, { gas_unit_prices: [], block_gas_limit_reached: true })], single),
    ).toBe("100/100/150");
  });
});

describe("aip34: buckets", () => {
  it.each([
    ["99", "150/150/300"],
    ["149", "150/150/300"],
    ["150", "300/300/500"],
    ["999999", "1000000/1000000/1000000"],
    ["1000000", "1000000/1000000/1000000"],
    ["5000000", "5000000/5000000/5000000"],
  ])(
    "a full block at minimum price %s rounds to the next bucket strictly above: %s",
    (price, expected) => {
      expect(
        estimateAfter(
          [block(1, { gas_unit_prices: [price], block_gas_limit_reached: true })],
          single,
        ),
      ).toBe(expected);
    },
  );
  it("custom buckets", () => {
    const b = block(1, { gas_unit_prices: ["120"], block_gas_limit_reached: true });
    expect(estimateAfter([b], { ...single, buckets: [0, 125, 200, 400] })).toBe("125/125/200");
  });
});

describe("aip34: windows, epochs, minimum prices", () => {
  it("skips the newest block unless told not to", () => {
    const blocks = [idleBlock(1), fullBlock(2, 1000)];
    const windows = { lowBlockHistory: 1, marketBlockHistory: 1, aggressiveBlockHistory: 1 };
    expect(estimateAfter(blocks, windows)).toBe("100/100/150");
    expect(estimateAfter(blocks, { ...windows, skipLatestBlock: false })).toBe("3000/3000/5000");
  });
  it("an epoch change starts the windows afresh", () => {
    const epoch1 = range(1, 40).map((h) => fullBlock(h, 100));
    const epoch2 = [idleBlock(41, { epoch: "2" }), idleBlock(42, { epoch: "2" })];
    expect(estimateAfter(epoch1)).toBe("150/150/300");
    expect(estimateAfter([...epoch1, epoch2[0]!])).toBe("100/100/150");
    expect(estimateAfter([...epoch1, ...epoch2])).toBe("100/100/150");
  });
  it("uses the newest block's minimum price, else the configured one", () => {
    expect(estimateAfter(range(1, 5).map((h) => idleBlock(h, { min_gas_unit_price: "50" })))).toBe(
      "50/50/150",
    );
    expect(
      estimateAfter(
        range(1, 5).map((h) => idleBlock(h)),
        { minGasUnitPrice: 200 },
      ),
    ).toBe("200/200/300");
    expect(
      estimateAfter(
        range(1, 5).map((h) => idleBlock(h)),
        { minGasUnitPrice: "2000000" },
      ),
    ).toBe("2000000/2000000/2000000");
  });
  it("low is the minimum of the newest lowBlockHistory blocks; regular the median of marketBlockHistory", () => {
    // 30 blocks (after skipping the newest): oldest 20 idle, newest 10 full at 400 (-> 500).
    const blocks = [
      ...range(1, 20).map((h) => idleBlock(h)),
      ...range(21, 31).map((h) => fullBlock(h, 400)),
    ];
    // low: newest 10 are all 500; median of 30 sorted [100 x20, 500 x10] at index 15 = 100 -> max(500, 100).
    expect(estimateAfter(blocks)).toBe("500/500/1000");
  });
  it("low counts the oldest block of its window; regular is the upper median of an even window", () => {
    const three = {
      ...single,
      lowBlockHistory: 3,
      marketBlockHistory: 3,
      aggressiveBlockHistory: 3,
    };
    // Newest first: 3000, 3000, then the idle block (100) at the far end of the low window.
    const lowLast = [fullBlock(1, 1000), idleBlock(2), fullBlock(3, 1000), fullBlock(4, 1000)];
    expect(estimateAfter(lowLast, three)).toBe("100/3000/5000");
    // Two blocks in the market window, 3000 then 150: the median is sorted[1] = 3000.
    const even = { ...single, marketBlockHistory: 2, aggressiveBlockHistory: 2 };
    expect(estimateAfter([fullBlock(1, 1000), fullBlock(2, 100)], even)).toBe("150/3000/5000");
  });
  it("the prioritized p90 of ten blocks is sorted[9], the dearest", () => {
    const ten = { ...single, aggressiveBlockHistory: 10 };
    const blocks = [fullBlock(1, 1000), ...range(2, 10).map((h) => fullBlock(h, 100))];
    expect(estimateAfter(blocks, ten)).toBe("150/150/5000");
  });
  it("prices above 2^53 stay exact", () => {
    const p = "9007199254740993";
    expect(estimateAfter(range(1, 3).map((h) => fullBlock(h, p)))).toBe(`${p}/${p}/${p}`);
  });
});

strategyPropertySuite("aip34", aip34());
