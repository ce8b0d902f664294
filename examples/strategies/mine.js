// A strategy of your own, for `gasdigest backtest --strategies aip34,./examples/strategies/mine.js`
// (or `serve --strategy` / `replay --strategy`): the default export is a strategy factory, a
// function from the validated config to { name, ingest, estimate, reset }. This one serves the
// 50th, 75th and 95th percentile of the cheapest price of each of the last 40 blocks.
export default function percentiles(config) {
  const cheapest = []; // one price per block, oldest first
  const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return {
    name: "percentiles",
    ingest(block) {
      const prices = block.gasUnitPrices; // BigInts
      cheapest.push(prices.reduce((a, p) => (p < a ? p : a), prices[0] ?? config.minGasUnitPrice));
      if (cheapest.length > 40) cheapest.shift();
    },
    estimate(min) {
      const s = [...cheapest].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const [low, mid, high] = s.length ? [at(s, 0.5), at(s, 0.75), at(s, 0.95)] : [min, min, min];
      const deprioritized = low > min ? low : min;
      const regular = mid > deprioritized ? mid : deprioritized;
      return { deprioritized, regular, prioritized: high > regular ? high : regular };
    },
    reset() {
      cheapest.length = 0;
    },
  };
}
