/** What one block meant for the spike rule; see {@link createSpikeDetector}. */
export interface SpikePhase {
  /** This block starts a spike. */
  readonly started: boolean;
  /** The block is inside a spike and not at the minimum. */
  readonly spiking: boolean;
  /** The block is at the minimum inside a spike: part of a run that may end it. */
  readonly calming: boolean;
  /** This block starts such a run (the spike's end, if the run reaches `calmBlocks`). */
  readonly calmStart: boolean;
  /** This block completes the run: the spike ended at the run's first block. */
  readonly ended: boolean;
}

/** Follows the clearing prices of a history and reports spikes; see {@link createSpikeDetector}. */
export interface SpikeDetector {
  /** The next block: whether its clearing price was the minimum gas unit price. */
  next(atMinimum: boolean): SpikePhase;
  /** Spikes started so far. */
  readonly spikes: number;
}

/**
 * The spike rule of the backtest. A spike starts at a block whose clearing price is above the
 * minimum gas unit price, right after at least `calmBlocks` blocks that cleared at the minimum
 * (so a history that starts busy has no spike until it has calmed down). It ends at the first
 * block of the next run of `calmBlocks` blocks at the minimum; shorter runs at the minimum
 * inside a spike do not end it. The blocks that end a spike count towards the next one's start.
 *
 * @example
 * const d = createSpikeDetector(2);
 * d.next(true); d.next(true); d.next(false).started; // true
 */
export function createSpikeDetector(calmBlocks: number): SpikeDetector {
  let inSpike = false;
  let run = 0;
  let spikes = 0;
  return {
    next(atMinimum) {
      let started = false;
      let calmStart = false;
      let ended = false;
      let spiking = false;
      let calming = false;
      if (!inSpike) {
        if (atMinimum) run++;
        else {
          if (run >= calmBlocks) {
            inSpike = true;
            started = true;
            spiking = true;
            spikes++;
          }
          run = 0;
        }
      } else if (atMinimum) {
        run++;
        calming = true;
        calmStart = run === 1;
        if (run >= calmBlocks) {
          ended = true;
          inSpike = false;
        }
      } else {
        spiking = true;
        run = 0;
      }
      return { started, spiking, calming, calmStart, ended };
    },
    get spikes() {
      return spikes;
    },
  };
}
