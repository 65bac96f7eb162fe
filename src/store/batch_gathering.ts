/**
 * Group commit's other half: once a batch is committed and its callers answered, the next batch
 * waits a moment for them to come back, so that they share it.
 *
 * Most clients send their next create once their last one is answered, a round trip later (the
 * answer sent and read, the next request sent and parsed). A store that takes its queue the moment
 * a batch is answered finds there only the creates that arrived during the commit, and the clients
 * fall into groups that never meet again: one group queues while the other's batch commits, and
 * each commit carries half of them. Measured with 64 clients: batches of 1 and 63 taking turns on
 * a 200 ms fdatasync (the file store), batches of exactly 32 on PostgreSQL.
 *
 * So the next batch starts when the queue holds as many creates as the last batch and the queue
 * behind it had together (everyone is back, or as many others came), or when the wait's time is
 * up, whichever comes first. Waiting for the last batch's own size would not do: two groups of 32
 * would each find the other queued and go on taking turns. Each store sets the time from how long
 * its commit took (`GatherPolicy`). A close ends a wait at once.
 */

/** How long the batch after a commit may wait for its callers. */
export interface GatherPolicy {
  /** The longest wait, as a share of the commit's time: what a lone create pays at most. */
  readonly shareOfCommit: number;
  /** Shorter waits are not made (the batch goes at once, and no timer is set). */
  readonly minMs: number;
  /** Nor longer ones: after a commit that stalled, the creates that come next do not pay for it. */
  readonly maxMs: number;
}

/** What the batch after a commit waits for, or undefined: it goes at once. */
export interface NextBatch {
  /** The queue length that ends the wait. */
  readonly entries: number;
  readonly ms: number;
}

/**
 * The wait after a commit of `batchSize` creates that took `commitMs`, with `queued` creates
 * behind it (counted before its callers are answered, so that one who comes back in the same turn
 * is counted as queued), capped at `maxBatch`.
 */
export function nextBatch(
  policy: GatherPolicy,
  commitMs: number,
  batchSize: number,
  queued: number,
  maxBatch: number,
): NextBatch | undefined {
  const ms = Math.min(commitMs * policy.shareOfCommit, policy.maxMs);
  if (ms < policy.minMs) return undefined;
  return { entries: Math.min(queued + batchSize, maxBatch), ms };
}

/** The one wait of a queue's drain loop at a time, and the arrivals that end it. */
export class BatchGathering {
  #untilQueued = Infinity;
  #end: (() => void) | undefined;

  /** The queue now holds `queued` creates: ends a wait that was for that many. */
  queued(queued: number): void {
    if (queued >= this.#untilQueued) this.#end?.();
  }

  /** Ends the wait now (whoever waits for the store to be idle brings no more creates). */
  stop(): void {
    this.#end?.();
  }

  /** Resolves once the queue holds `next.entries` (see `queued`), after `next.ms`, or on `stop`. */
  wait(next: NextBatch | undefined, queued: number): Promise<void> {
    if (next === undefined || queued >= next.entries) return Promise.resolve();
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.#untilQueued = Infinity;
        this.#end = undefined;
        resolve();
      };
      const timer = setTimeout(end, next.ms);
      this.#untilQueued = next.entries;
      this.#end = end;
    });
  }
}
