import { type Observable, Subject } from "rxjs";
import { type BlockSample, type BlockSampleInput, parseBlockSample } from "../core/blockSample.js";
import { createDrainQueue } from "../core/createDrainQueue.js";
import { describeValue } from "../core/describeValue.js";
import { BaseError, InvalidConfigError } from "../core/errors.js";

/** What {@link pushSource} returns. */
export interface PushSource {
  /**
   * Validate a block (NDJSON wire shape or a parsed `BlockSample`) and hand it to every current
   * subscriber of `source$`. Returns the validated block.
   * @throws {InvalidBlockSampleError} the block does not match the format (nothing is emitted).
   * @throws {BaseError} after `end()`.
   */
  push(block: BlockSampleInput | BlockSample): BlockSample;
  /** Complete `source$`; later pushes throw. Idempotent. */
  end(): void;
  /** Whether `end()` was called. */
  readonly ended: boolean;
  /** Hot, multicast: a subscriber gets the blocks pushed after it subscribed. */
  readonly source$: Observable<BlockSample>;
}

/**
 * An in-memory source for software that already has blocks in hand (a node, an indexer): push
 * each block as it is committed; bad input is refused at once, in the caller's stack.
 *
 * @example
 * import { createEngine, aip34, pushSource } from "gasdigest";
 * const blocks = pushSource();
 * const engine = createEngine({ strategy: aip34() });
 * engine.connect(blocks.source$);
 * blocks.push({ height: "1042", epoch: "7", gas_unit_prices: ["100", "150"] });
 * engine.snapshot()?.estimate; // the estimate after block 1042
 */
export function pushSource(...args: []): PushSource {
  // It has no options: an argument here is a mistake that would be ignored.
  if ((args as unknown[]).length > 0 && (args as unknown[])[0] !== undefined)
    throw new InvalidConfigError([
      {
        path: "",
        message: `pushSource() takes no options (got ${describeValue((args as unknown[])[0])})`,
      },
    ]);
  const subject = new Subject<BlockSample>();
  let ended = false;
  // A push (or end) made by a subscriber while a block is handed out waits until every
  // subscriber has that block: each sees the blocks in the order they were pushed, as the
  // engine does with its own snapshots.
  const queue = createDrainQueue<BlockSample>();
  let delivering = false;
  let endWaits = false;
  const drain = () => {
    delivering = true;
    try {
      for (let block = queue.take(); block !== undefined; block = queue.take()) subject.next(block);
      if (endWaits) subject.complete();
    } finally {
      delivering = false;
    }
  };
  return {
    push(input) {
      if (ended) throw new BaseError("cannot push: the push source has ended");
      const block = parseBlockSample(input);
      queue.push(block);
      if (!delivering) drain();
      return block;
    },
    end() {
      if (ended) return;
      ended = true;
      if (delivering) endWaits = true;
      else subject.complete();
    },
    get ended() {
      return ended;
    },
    source$: subject.asObservable(),
  };
}
