/**
 * The group commit of both stores: creates queue while a batch commits (the file's write and
 * fdatasync, or a transaction), then go together in the next; one batch at a time, since a
 * second would split the same creates into twice the commits.
 *
 * After a commit the next batch waits a moment for the callers just answered, who send their next
 * create a round trip later: else they split into groups that take turns and never meet
 * (docs/performance.md). The wait ends once the last batch and its queue are queued again, after
 * a share of the commit's time, or on a close; one shorter than a timer needs MIN_POPULATION creates
 * (as PostgreSQL's `commit_siblings`). A wait its timer ended lets the next 1, 2, 4 …
 * MAX_BATCHES_WITHOUT_WAIT batches go without one; arrivals reset the count. None after a failure.
 */

export const WAIT_SHARE_OF_COMMIT = 1 / 4;
export const MAX_WAIT_MS = 100;
const MIN_WAIT_MS = 1;
const MIN_POPULATION = 5;
export const MAX_BATCHES_WITHOUT_WAIT = 64;

/** What the batch after a commit waits for: the queue length that ends the wait, at most `ms`. */
type NextBatch = { readonly entries: number; readonly ms: number };

/** `queued`: creates behind the commit, counted before its callers are answered. */
type Commit = { ms: number; size: number; queued: number; maxBatch: number };

/** Undefined: the next batch goes at once. */
export function nextBatch(commit: Commit): NextBatch | undefined {
  const ms = Math.min(commit.ms * WAIT_SHARE_OF_COMMIT, MAX_WAIT_MS);
  const population = commit.queued + commit.size;
  if (ms < MIN_WAIT_MS && population < MIN_POPULATION) return undefined;
  return { entries: Math.min(population, commit.maxBatch), ms };
}

/** The one wait of a drain loop at a time, and the arrivals that end it. */
export class BatchGathering {
  #untilQueued = Infinity;
  #end: ((how: "arrivals" | "timer" | "close") => void) | undefined;
  #batchesWithoutWait = 0;
  #backoff = 0;
  /** Closes under way (`withoutWaits`): no wait is made meanwhile. */
  #closing = 0;

  arrived(queueLength: number): void {
    if (queueLength >= this.#untilQueued) this.#end?.("arrivals");
  }

  /** Runs `close` with no wait in progress or made meanwhile: a closer brings no creates. */
  async withoutWaits<T>(close: () => Promise<T>): Promise<T> {
    this.#closing++;
    this.#end?.("close");
    try {
      return await close();
    } finally {
      this.#closing--;
    }
  }

  /** Resolves once the queue holds `next.entries`, after `next.ms`, or on a close. */
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

/** A committed batch, as its store measured it; undefined when the commit failed. */
export type Committed = { readonly ms: number; readonly queued: number } | undefined;

interface GroupCommitOptions<T> {
  readonly maxBatch: number;
  /** Commits and answers one batch; counts `queued` before it answers (a caller back counts). */
  readonly commit: (batch: T[]) => Promise<Committed>;
  /** A bug of ours escaped `commit`: the loop stops; the next `add` starts it again. */
  readonly onError: (error: unknown) => void;
}

/** A queue drained batch by batch, one commit at a time, with the wait for the callers. */
export class GroupCommit<T> {
  /** Oldest first; the owner may take expired entries from the head. */
  readonly queue: T[] = [];
  readonly #gathering = new BatchGathering();
  #draining: Promise<void> | undefined;

  constructor(private readonly options: GroupCommitOptions<T>) {}

  add(entry: T): void {
    this.queue.push(entry);
    this.#gathering.arrived(this.queue.length);
    this.#draining ??= this.#drain();
  }

  /** Resolves once every queued entry has been answered, ending any wait for callers. */
  idle(): Promise<void> {
    return this.#gathering.withoutWaits(async () => {
      while (this.#draining !== undefined) await this.#draining;
    });
  }

  async #drain(): Promise<void> {
    const { commit, maxBatch, onError } = this.options;
    try {
      // After the current microtasks, so creates made in the same turn share the first batch.
      await undefined;
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, maxBatch);
        const committed = await commit(batch);
        if (committed === undefined) continue;
        const next = nextBatch({ ...committed, size: batch.length, maxBatch });
        await this.#gathering.wait(next, this.queue.length);
      }
    } catch (error) {
      onError(error);
    } finally {
      // In the same turn as the last look at the queue: a create that the answers bring finds no
      // loop and starts one, never waits for one that is ending.
      this.#draining = undefined;
    }
  }
}
