// Synthetic block histories of shapes the simulator does not make, to try strategies on chains
// their defaults were never looked at with (docs/backtest.md, "Shapes the simulator does not
// make"). Writes NDJSON block samples, one per line, to stdout.
//
//   node scripts/synthHistory.mjs KIND BLOCKS [SEED] > history.ndjson
//
// KIND:
//   trend  an AR(1) clearing price (persistence 0.8) around a level that climbs 100x over the
//          first half and comes back down; 70 % of blocks full
//   shift  the level jumps between 1x, 10x and 100x every 3,000 blocks, independent noise
//          within; 85 % full
//   heavy  independent clearing prices on a Pareto tail (index 1.5) above a minimum of 10^9
//          (wei-like); 60 % full
//   cycle  a busy-quiet cycle of 2,000 blocks: the share of full blocks and the price follow a
//          sine
//   tiny   prices of a few units above a minimum of 1 (integer steps are large); 80 % full
//   basefee
//          the minimum price itself moves every block, like an EIP-1559 base fee: up to 12.5 %
//          up after a block fuller than half, down after an emptier one, on a demand that
//          drifts; 15 % of blocks full, clearing a little above their own minimum
//   war    quiet stretches of 50-500 blocks that are not full (they clear at the minimum),
//          between bidding wars of 20-120 full blocks, each clearing about 4 % above the last
//          from 1.5-3 times the minimum, then a crash back to quiet
//
// A full block holds 250 transactions, its cheapest paying the clearing price; a block that is
// not full holds 20-219 transactions near the minimum. Same arguments, same file.

const [kind, blocksArg, seedArg] = process.argv.slice(2);
const KINDS = ["trend", "shift", "heavy", "cycle", "tiny", "basefee", "war"];
const blocks = Number(blocksArg);
if (!KINDS.includes(kind) || !Number.isInteger(blocks) || blocks < 1) {
  process.stderr.write(`usage: node scripts/synthHistory.mjs ${KINDS.join("|")} BLOCKS [SEED]\n`);
  process.exit(1);
}
const CAPACITY = 250;

// A 64-bit linear congruential generator: deterministic for a seed, good enough for shapes.
let state = BigInt(Number(seedArg ?? 7)) * 2654435761n + 12345n;
function random() {
  state = (state * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
  return Number(state >> 11n) / 2 ** 53;
}
function gauss() {
  return Math.sqrt(-2 * Math.log(random() + 1e-300)) * Math.cos(2 * Math.PI * random());
}

let min = 100;
let walk = 0;
let level = 0;
let war = true;
let phaseEnd = 1;
/** The log clearing price of block `t` and the chance that it is full. */
function draw(t) {
  switch (kind) {
    case "trend":
      level = Math.log(100) * (t < blocks / 2 ? t / (blocks / 2) : (blocks - t) / (blocks / 2));
      walk = 0.8 * walk + 0.4 * gauss();
      return { log: Math.log(min) + 0.5 + level + walk, full: 0.7 };
    case "shift":
      if (t % 3000 === 1) level = Math.log(10) * Math.floor(random() * 3);
      return { log: Math.log(min) + 0.3 + level + 0.5 * Math.abs(gauss()), full: 0.85 };
    case "heavy":
      min = 1e9;
      return { log: Math.log(min) - Math.log(random() + 1e-12) / 1.5, full: 0.6 };
    case "cycle": {
      const phase = Math.sin((2 * Math.PI * t) / 2000);
      return {
        log: Math.log(min) + Math.max(0, 1.5 * phase) + 0.4 * Math.abs(gauss()),
        full: 0.5 + 0.45 * phase,
      };
    }
    case "basefee": {
      // Demand drifts around 20x the floor of 100; a block is fuller than half while the base
      // fee is below what demand will pay, and the minimum follows as a base fee does.
      walk = 0.995 * walk + 0.07 * gauss();
      const used = Math.min(
        1,
        Math.max(0, 0.5 + 0.4 * (Math.log(2000) + walk - Math.log(min)) + 0.15 * gauss()),
      );
      min = Math.max(100, Math.round(min * (1 + 0.125 * (used - 0.5) * 2)));
      return { log: Math.log(min) + 0.2 * Math.abs(gauss()), full: used >= 1 ? 1 : 0.15 };
    }
    case "war": {
      if (t >= phaseEnd) {
        war = !war;
        phaseEnd = t + (war ? 20 + Math.floor(random() * 101) : 50 + Math.floor(random() * 451));
        level = Math.log(1.5 + 1.5 * random());
      }
      if (!war) return { log: Math.log(min), full: 0 };
      level += Math.log(1.04) + 0.01 * gauss();
      return { log: Math.log(min) + level, full: 0.95 };
    }
    default:
      min = 1;
      return { log: Math.log(1 + Math.floor(-Math.log(random() + 1e-12) * 1.5)), full: 0.8 };
  }
}

const lines = [];
for (let t = 1; t <= blocks; t++) {
  const { log, full: chance } = draw(t);
  const full = random() < chance;
  const clearing = Math.max(min, Math.round(Math.exp(log)));
  const count = full ? CAPACITY : 20 + Math.floor(random() * 200);
  const prices = [];
  for (let i = 0; i < count; i++) {
    const price = full
      ? i === 0
        ? clearing
        : Math.round(clearing * Math.exp(Math.abs(gauss()) * 0.7))
      : Math.round(min * Math.exp(Math.abs(gauss()) * 1.5));
    prices.push(BigInt(Math.max(min, price)));
  }
  prices.sort((a, b) => (b > a ? 1 : b < a ? -1 : 0));
  lines.push(
    JSON.stringify({
      height: String(t),
      epoch: "1",
      timestamp_usec: String(1_700_000_000_000_000 + t * 250_000),
      first_version: String(t * 1000),
      last_version: String(t * 1000 + count),
      chain_id: 4,
      min_gas_unit_price: String(min),
      gas_unit_prices: prices.map(String),
    }),
  );
}
process.stdout.write(`${lines.join("\n")}\n`);
