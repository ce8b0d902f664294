/**
 * The closest of `known` to a mistyped `word` (an unknown command, flag or field), if one is close
 * enough to be a typo: edits (a letter added, dropped, changed, or two neighbours swapped) at
 * most a third of the word's letters, and at most 2; leading dashes are not letters. Failing
 * that, the same words in another case or with other separators (`low_block_history` for
 * `lowBlockHistory`), then the singular or plural of the word (`--strategy` for `--strategies`:
 * one command names one, another several).
 *
 * @example
 * didYouMean("--prot", ["--port", "--host"]); // "--port"
 */
export function didYouMean(word: string, known: Iterable<string>): string | undefined {
  const names = [...known];
  let best: string | undefined;
  let bestDistance = Math.min(2, Math.floor(word.replace(/^-+/, "").length / 3));
  for (const candidate of names) {
    const d = editDistance(word, candidate, bestDistance);
    if (d < bestDistance || (d === bestDistance && best === undefined)) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (best !== undefined) return best;
  // The same words written another way: `low_block_history`, the node's own config name, for
  // `lowBlockHistory`; `--max_connections` for `--max-connections`.
  const bare = words(word);
  const spelt = names.find((n) => n !== word && words(n) === bare);
  if (spelt !== undefined) return spelt;
  const stem = singular(word);
  return names.find((n) => n !== word && singular(n) === stem);
}

/** A name's letters without leading dashes, word separators or case: `lowblockhistory`. */
function words(name: string): string {
  return name.replace(/^-+/, "").replace(/[-_]/g, "").toLowerCase();
}

/** `strategies` → `strategy`, `hosts` → `host`: enough to pair a name with its plural. */
function singular(name: string): string {
  return name.replace(/ies$/, "y").replace(/s$/, "");
}

/**
 * Edit distance of `a` and `b` with a swap of two neighbours as one edit (the optimal string
 * alignment distance), or `limit + 1` once it is sure to exceed `limit`.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let smallest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, before[j - 2]! + 1);
      row.push(value);
      if (value < smallest) smallest = value;
    }
    if (smallest > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}
