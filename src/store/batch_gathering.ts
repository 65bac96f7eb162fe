/**
 * Group commit's other half: once a batch is committed and its callers answered, the next batch
 * waits a moment for them to come back, so that they share it. Both stores use it: the file
 * store's writer after each fdatasync, the PostgreSQL store after each transaction.
 *
 * Why. Most clients under load send their next create once their last one is answered, a round
 * trip later (the answer sent and read, the next request sent and parsed). A store that takes its
 * queue the moment a batch is answered finds there only the creates that arrived during the
 * commit, and the clients fall into groups that never meet again: one group queues while the
 * other's batch commits, and each commit carries part of them. Measured with 64 clients: batches
 * of 1 and 63 taking turns on a 200 ms fdatasync (150 creates/s where one batch per sync gives
 * 300); batches of 30–32 on a 0.2 ms one and on PostgreSQL. Every commit has a price of its own
 * (an fdatasync costs about 110 µs of CPU here; a transaction, a round trip and a WAL flush), so
 * twice the batches cost CPU even where the disk keeps up.
 *
 * How. The next batch starts when the queue holds as many creates as the last batch and the
 * queue behind it had together (everyone is back, or as many others came), or when the wait's
 * time is up, whichever comes first. Waiting for the last batch's own size would not do: two
 * groups of 32 would each find the other queued and go on taking turns. The time is a quarter of
 * the commit's (what a create that comes alone pays at most), at most 100 ms (after a commit that
 * stalled for seconds its callers have mostly given up, and the creates that come next must not
 * pay a share of the stall). A close makes no wait, and ends the one in progress.
 *
 * When. After a commit of 4 ms or more, always. After a quicker one, a quarter of it is shorter
 * than a timer can wait (runtimes fire none sooner than 1–2 ms), so a wait would cost a create
 * that comes alone several commits' time: the batch waits only when at least five creates were in
 * it or queued behind it, a sign of clients in a closed loop, which come back at once (PostgreSQL's
 * `commit_delay` likewise waits only while `commit_siblings`, default 5, other transactions are
 * open). And a wait that its time ended (the callers did not come back: clients that pause between
 * creates) lets the next batches go without one, 1, then twice as many after each such wait in a
 * row, up to 64, so that such clients pay for it about once in 64 batches; a wait that arrivals end
 * (or find ended) starts the count again.
 *
 * Measured (docs/performance.md, "Store"): 64 clients, 0.2 ms fdatasync: 11–14% less CPU per
 * create and 5–12% more creates/s on Deno and Bun. Clients that pause between creates: the same
 * latency or better, but for 64 clients pausing 0–20 ms on Deno (a tenth of the load the service
 * takes), whose median rose by 0.6 ms, the tail unchanged: there newcomers end the wait before its
 * timer does, so it never backs off.
 */

/** How long the batch after a commit may wait for its callers, by that commit's time. */
export interface GatherPolicy {
  /** The longest wait, as a share of the commit's time. */
  readonly shareOfCommit: number;
  /** Nor longer than this. */
  readonly maxMs: number;
  /** A wait shorter than this (a quick commit's) is made only for `minPopulation` creates … */
  readonly minMs: number;
  /** … or more: those of the batch and those queued behind it. */
  readonly minPopulation: number;
}

/** The policy of both stores (see the module comment). */
export const GATHER_POLICY: GatherPolicy = {
  shareOfCommit: 1 / 4,
  maxMs: 100,
  minMs: 1,
  minPopulation: 5,
};

/**
 * After a wait that its time ended, the next batches go without one: 1, then twice as many after
 * each such wait in a row, up to this many.
 */
export const MAX_BATCHES_WITHOUT_WAIT = 64;

/** What the batch after a commit waits for (undefined: it goes at once). */
export interface NextBatch {
  /** The queue length that ends the wait. */
  readonly entries: number;
  readonly ms: number;
}

/** A commit that succeeded, as `nextBatch` weighs it. */
export interface Commit {
  /** How long it took (for PostgreSQL, its wait for the counter's lock included). */
  readonly ms: number;
  /** The creates it held. */
  readonly size: number;
  /**
   * The creates queued behind it, counted before its callers are answered (so that one who comes
   * back in the same turn is counted as queued).
   */
  readonly queued: number;
  /** The most a batch may hold. */
  readonly maxBatch: number;
}

/** What the batch after `commit` waits for, by `policy`. */
export function nextBatch(policy: GatherPolicy, commit: Commit): NextBatch | undefined {
  const ms = Math.min(commit.ms * policy.shareOfCommit, policy.maxMs);
  const population = commit.queued + commit.size;
  if (ms < policy.minMs && population < policy.minPopulation) return undefined;
  return { entries: Math.min(population, commit.maxBatch), ms };
}

/** The one wait of a store's drain loop at a time, and the arrivals that end it. */
export class BatchGathering {
  #untilQueued = Infinity;
  #end: ((how: "arrivals" | "timer" | "close") => void) | undefined;
  /** Batches still to go without a wait, and how many the next wait that times out sets. */
  #batchesWithoutWait = 0;
  #backoff = 0;
  /** Closes under way (`withoutWaits`): no wait is made meanwhile. */
  #closing = 0;

  /** A create arrived: the queue holds `queueLength`. Ends a wait that was for that many. */
  arrived(queueLength: number): void {
    if (queueLength >= this.#untilQueued) this.#end?.("arrivals");
  }

  /**
   * Runs `close` (a wait for the store to be idle) with no wait for callers in progress or made
   * meanwhile: whoever closes the store brings no more creates.
   */
  async withoutWaits<T>(close: () => Promise<T>): Promise<T> {
    this.#closing++;
    this.#end?.("close");
    try {
      return await close();
    } finally {
      this.#closing--;
    }
  }

  /**
   * Resolves once the queue holds `next.entries` (told by `arrived`), after `next.ms`, or on a
   * close; at once while batches go without a wait (see MAX_BATCHES_WITHOUT_WAIT).
   */
  wait(next: NextBatch | undefined, queueLength: number): Promise<void> {
    if (next === undefined || this.#closing > 0) return Promise.resolve();
    if (queueLength >= next.entries) {
      this.#backoff = 0;
      return Promise.resolve();
    }
    if (this.#batchesWithoutWait > 0) {
      this.#batchesWithoutWait--;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const end = (how: "arrivals" | "timer" | "close") => {
        clearTimeout(timer);
        this.#untilQueued = Infinity;
        this.#end = undefined;
        if (how === "timer") {
          this.#backoff = Math.min(2 * this.#backoff || 1, MAX_BATCHES_WITHOUT_WAIT);
          this.#batchesWithoutWait = this.#backoff;
        } else if (how === "arrivals") {
          this.#backoff = 0;
        }
        resolve();
      };
      const timer = setTimeout(() => end("timer"), next.ms);
      this.#untilQueued = next.entries;
      this.#end = end;
    });
  }
}
