import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import type { BlockSample } from "../../core/blockSample.js";
import { createBlockBudget } from "./createBlockBudget.js";
import { createBlockDating } from "./createBlockDating.js";
import { createEpochMinimum } from "./createEpochMinimum.js";
import { createEpochPrices } from "./createEpochPrices.js";
import { createNodeClient } from "./createNodeClient.js";
import { createUnavailableWatch } from "./createUnavailableWatch.js";
import { type Fetched, fetchAnnouncedBlock } from "./fetchCompleteBlock.js";
import type { ResolvedAptosRestOptions } from "./options.js";
import { type LedgerInfo, skipLimit } from "./schemas.js";
import { toBlockSample } from "./toBlockSample.js";

function startHeight(info: LedgerInfo, options: ResolvedAptosRestOptions): bigint {
  if (options.startHeight !== undefined) return options.startHeight;
  const from = info.blockHeight + 1n - BigInt(options.backfillBlocks);
  return from > info.oldestBlockHeight ? from : info.oldestBlockHeight;
}

/**
 * The follow loop of the `aptosRest` source: read the ledger info, backfill, then poll the tip.
 * Every height from the next one to emit up to `lookaheadBlocks` ahead (and up to the tip) is
 * being fetched at any time; the client runs at most `concurrency` requests at once, the lowest
 * heights first, so a stalled or retried block holds back only its own emission, never the
 * other fetches. Blocks are emitted strictly in height order, each exactly once. When the
 * window reaches the tip while blocks are still being fetched, the tip is re-read in the
 * background (at most once per `pollIntervalMs`), so the window does not drain at a tip that
 * has moved on. The gas schedule of a new epoch is read as soon as its first block is in.
 * Ends only when `signal` aborts: it then resolves, or rejects with the abort reason if a read
 * was under way; the caller ignores either. Any other rejection is a failure of the source.
 */
export async function followChain(
  options: ResolvedAptosRestOptions,
  emit: (block: BlockSample) => void,
  signal: AbortSignal,
): Promise<void> {
  const { onEvent } = options;
  let catchingUp = true;
  let caughtUpBlocks = 0;
  const client = createNodeClient({
    ...options,
    onEvent(event) {
      if (event.type === "recovered") {
        catchingUp = true;
        caughtUpBlocks = 0;
      }
      onEvent(event);
    },
  });
  let info = await client.ledgerInfo(signal);
  let lastRead = performance.now();
  const chainId = info.chainId;
  // `tip`: the height the loop works up to (`caught_up` once past it); `known`: the newest tip
  // seen, which background reads raise meanwhile (the window extends up to it).
  let tip = info.blockHeight;
  let known = tip;
  // When each block was made, from the newest tip read (staleness counts from then).
  const dating = createBlockDating(options.now, info);
  const readTip = dating.readTip;
  let next = startHeight(info, options);
  // The highest height known to exist: the tip at start, then any block the node answered, and
  // when it was learnt. A skip past a 410 goes at most skipLimit above it (a ledger info can say
  // anything; heights grow only so fast).
  let proven = tip;
  let provenAt = options.now();
  const started = () =>
    onEvent({
      type: "started",
      url: options.baseUrl,
      chainId,
      tip,
      oldest: info.oldestBlockHeight,
      from: next,
    });
  started();
  // Whether a block was emitted: until then, the start height rests on a tip no block proved.
  let emitted = false;
  // The first block to read was answered 404 (nothing read yet, so nothing is caught up to).
  let refusedFirst = false;
  /**
   * Before the first block, a ledger info whose tip is below the height the backfill was planned
   * from means that plan came from a tip nobody made (one bogus answer, or a node since replaced
   * by one far behind): plan it again from this tip, and tell it (`started` again), instead of
   * waiting for the chain to reach a height it may never reach. An explicit `startHeight` is the
   * caller's (a recording resumed): it is waited for.
   */
  const replan = (): boolean => {
    if (emitted || options.startHeight !== undefined) return false;
    const from = startHeight(info, options);
    if (from >= next) return false;
    next = from;
    tip = info.blockHeight;
    known = tip;
    proven = tip;
    provenAt = options.now();
    behind = 0;
    started();
    return true;
  };
  /**
   * The height a skip past pruned heights left (`pruned_skip`), until a block above it proves
   * the skip: a ledger info can claim an oldest height up to `skipLimit` ahead, and one bogus
   * answer with a 410 would otherwise leave the source waiting there for days.
   */
  let skippedFrom: bigint | undefined;
  /**
   * A later ledger info whose tip is below the height a skip went to says the node never had
   * it: undo the skip, back to where it left (or the node's oldest height now, if above), and
   * tell it (`started` again).
   */
  const undoSkip = (): boolean => {
    if (skippedFrom === undefined) return false;
    const back = info.oldestBlockHeight > skippedFrom ? info.oldestBlockHeight : skippedFrom;
    skippedFrom = undefined;
    if (back >= next) return false;
    resetWindow();
    next = back;
    tip = info.blockHeight;
    known = tip;
    behind = 0;
    started();
    return true;
  };
  // Looks in a row at a tip below the last block emitted (reported once per stretch).
  let behind = 0;
  // The next block refused (404, or 410 with nothing to skip to) for long: told, not silent.
  const unavailable = createUnavailableWatch(options.now, onEvent);
  const prices = createEpochPrices(client, signal);
  const minimum = createEpochMinimum(prices, options);
  // Epochs (and first versions) of fetched blocks from `next - 1` on: where `h - 1` and `h`
  // differ, an epoch begins at `h` and its gas schedule is read right away.
  const epochOf = new Map<bigint, { epoch: bigint; version: bigint }>();
  const checkEpochStart = (h: bigint) => {
    const b = epochOf.get(h);
    if (!b) return;
    let before = epochOf.get(h - 1n)?.epoch;
    if (before === undefined) {
      if (h !== next) return; // not known yet
      before = minimum.epoch;
    }
    if (before !== b.epoch) prices.prefetch(b.epoch, b.version);
  };
  const lookahead = BigInt(options.lookaheadBlocks);
  // Blocks being fetched from `next` on, by height; cleared (and aborted) on a skip or a 404.
  let window = new Map<bigint, Promise<Fetched>>();
  // What the window may hold, in transactions: huge blocks cannot fill the whole lookahead.
  const budget = createBlockBudget(
    (options.concurrency + 4) * options.maxBlockTransactions,
    options.maxBlockTransactions,
    () => next,
  );
  // Each fetch of the window listens to its signal (a place in line, a request, a hedge).
  const listeners = 4 * options.lookaheadBlocks + 16;
  const windowController = () => {
    const c = new AbortController();
    setMaxListeners(listeners, c.signal);
    return c;
  };
  let windowAbort = windowController();
  // Bumped with every reset: a background tip read started before it is dropped.
  let generation = 0;
  const abortWindow = () => windowAbort.abort(signal.reason);
  signal.addEventListener("abort", abortWindow, { once: true });
  const resetWindow = () => {
    windowAbort.abort();
    window = new Map();
    windowAbort = windowController();
    generation++;
    epochOf.clear();
    budget.reset();
    // The reads started for blocks of the cleared window are aborted: those heights may come
    // back with other epochs and versions (another node behind a load balancer).
    prices.retain(minimum.epoch === undefined ? new Set() : new Set([minimum.epoch]));
  };
  const fill = () => {
    const last = next + lookahead - 1n;
    const upTo = last < known ? last : known;
    for (let h = next; h <= upTo; h++) {
      if (window.has(h)) continue;
      const started = generation;
      const windowSignal = windowAbort.signal;
      const p = budget
        .admit(h)
        .then(() => fetchAnnouncedBlock(client, h, windowSignal, options.pollIntervalMs / 10));
      p.then(
        (r) => {
          if (started !== generation) return;
          budget.finished(h, r.kind === "block" ? r.block.transactions.length : undefined);
          if (r.kind !== "block") return;
          if (h > proven) {
            proven = h;
            provenAt = options.now();
          }
          epochOf.set(h, { epoch: r.epoch, version: r.block.firstVersion });
          checkEpochStart(h);
          checkEpochStart(h + 1n);
        },
        () => {
          // Aborted fetches of a cleared window are not awaited.
          if (started === generation) budget.finished(h, undefined);
        },
      );
      window.set(h, p);
    }
  };
  // While blocks are being fetched and the window is cut short by the tip, re-read the tip in
  // the background once per pollIntervalMs, so the window never drains at a tip that has moved
  // on (even while the emission waits for one slow block).
  let refreshing: Promise<void> | undefined;
  let refreshTimer: NodeJS.Timeout | undefined;
  const refreshTip = () => {
    if (refreshing || refreshTimer || signal.aborted) return;
    if (next > tip || known - next + 1n >= lookahead) return;
    const wait = options.pollIntervalMs - (performance.now() - lastRead);
    if (wait > 0) {
      refreshTimer = setTimeout(() => {
        refreshTimer = undefined;
        refreshTip();
      }, wait);
      return;
    }
    const started = generation;
    const read: Promise<void> = client.ledgerInfo(windowAbort.signal, chainId).then(
      (i) => {
        lastRead = performance.now();
        if (refreshing === read) refreshing = undefined;
        if (started !== generation) return;
        readTip(i);
        if (i.blockHeight > known) {
          known = i.blockHeight;
          fill();
        }
        refreshTip();
      },
      () => {
        if (refreshing === read) refreshing = undefined; // aborted with its window
      },
    );
    refreshing = read;
  };

  try {
    while (!signal.aborted) {
      if (next > tip) {
        if (known > tip) {
          tip = known;
          continue;
        }
        // Not while the first block to read is refused: nothing was read up to there.
        if (catchingUp && (emitted || !refusedFirst)) {
          onEvent({ type: "caught_up", height: next - 1n, blocks: caughtUpBlocks });
          catchingUp = false;
        }
        if (refreshing) {
          await refreshing;
          continue;
        }
        const wait = options.pollIntervalMs - (performance.now() - lastRead);
        if (wait > 0) await sleep(wait, undefined, { signal });
        info = await client.ledgerInfo(signal, chainId);
        lastRead = performance.now();
        readTip(info);
        tip = info.blockHeight;
        if (known < tip) known = tip;
        if (tip < next - 1n) {
          if (replan() || undoSkip()) continue;
          // A node a block or two behind now and then (a load balancer over lagging nodes) is
          // normal: only a tip that stays behind for `unreachableAfter` looks in a row is told.
          behind++;
          if (behind === options.unreachableAfter)
            onEvent({ type: "tip_behind", height: next - 1n, tip });
        } else {
          // Back at (or past) the last block after a stretch that was told: `caught_up` once
          // the new blocks are in.
          if (behind >= options.unreachableAfter) {
            catchingUp = true;
            caughtUpBlocks = 0;
          }
          behind = 0;
        }
        continue;
      }
      fill();
      refreshTip();
      const r = await window.get(next)!;
      if (r.kind === "block") {
        unavailable.answered();
        const minGasUnitPrice = await minimum.forBlock(
          r.epoch,
          r.block.height,
          r.block.firstVersion,
          () => Array.from(epochOf.values(), (b) => b.epoch),
        );
        const sample = toBlockSample(r.block, r.epoch, { chainId, minGasUnitPrice });
        dating.date(sample);
        emit(sample);
        emitted = true;
        skippedFrom = undefined;
        window.delete(next);
        epochOf.delete(next - 1n);
        next++;
        budget.emitted(next - 1n);
        if (catchingUp) caughtUpBlocks++;
      } else if (r.kind === "not_found") {
        // The node that answered is behind the tip we were told: wait a poll interval for it.
        unavailable.refused(next, 404, known);
        resetWindow();
        refusedFirst = !emitted;
        if (!emitted && options.startHeight === undefined) {
          // Nothing read yet: was the start planned from a tip the node does not have?
          info = await client.ledgerInfo(signal, chainId);
          lastRead = performance.now();
          readTip(info);
          if (replan()) continue;
        }
        tip = next - 1n;
        known = tip;
        lastRead = performance.now();
      } else {
        resetWindow();
        info = await client.ledgerInfo(
          signal,
          chainId,
          skipLimit(proven, options.now() - provenAt),
        );
        lastRead = performance.now();
        readTip(info);
        tip = info.blockHeight;
        known = tip;
        if (info.oldestBlockHeight > next) {
          onEvent({ type: "pruned_skip", from: next, to: info.oldestBlockHeight });
          skippedFrom ??= next;
          next = info.oldestBlockHeight;
          catchingUp = true;
          caughtUpBlocks = 0;
        } else {
          unavailable.refused(next, 410, tip);
          await sleep(options.pollIntervalMs, undefined, { signal });
        }
      }
    }
  } finally {
    clearTimeout(refreshTimer);
    signal.removeEventListener("abort", abortWindow);
    windowAbort.abort();
  }
}
