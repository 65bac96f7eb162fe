/**
 * The single writer of the data file: it writes and fdatasyncs the bytes it is handed and reports
 * the outcome. Entries queue up while the batch before them is on its way to disk; then all of
 * them (up to MAX_BATCH; under load, once the last batch's callers are back: see below) become the
 * next batch, encoded by the store (`encode`: ids and lines, in queue order, which is file order),
 * and go to disk with one write and one fdatasync (group commit). One batch is on its way at a
 * time, so the file never has a hole and batches are reported in file order. The writer reports
 * each batch once it is durable (`onDurable`); the store then publishes it to memory and answers
 * its callers, so nothing a reader sees can be lost.
 *
 * Why one batch at a time: a second batch syncing while the first one does splits the same
 * creates into twice the batches, and each fdatasync costs tens of microseconds of CPU;
 * measured under load, one batch at a time served as many creates with 7–10% less CPU per create
 * on each runtime (docs/performance.md, "Store").
 *
 * Why the next batch waits for the last one's callers: see `../batch_gathering.ts`. With 64
 * clients, batches of 1 and 63 took turns on a 200 ms fdatasync, and of about 32 on a fast disk.
 *
 * Failure rules (ENOSPC, EIO, …):
 * - every caller of the failed batch is answered `unavailable`, but only once the file has been
 *   truncated back to the end of the last durable batch (so it again ends on a complete line and
 *   the next batch starts on a line boundary) and that truncation fdatasync'd: a caller told
 *   "nothing was saved" never finds its pet after a crash;
 * - the ids of a failed batch are never handed out again (they may have been on disk): the store
 *   moves its id counter past a batch when it encodes it;
 * - creates queued behind the failed batch are tried normally afterwards, so the store recovers
 *   once space returns.
 *
 * Fail-stop rules, for when the writer cannot know what the file holds (as PostgreSQL panics
 * after a failed fsync rather than retry it):
 * - the cut-back itself fails (EIO from a dying disk): some of the failed batch's pets may be on
 *   disk, whole or torn. Its callers are told the outcome is unknown, and the writer halts:
 *   every later create is refused, writing nothing, until a restart, whose replay keeps each
 *   whole line (with its idempotency key, so a retry with that key returns the pet once) and cuts
 *   a torn one;
 * - `checkFile` reports that the file written is no longer the data file at its path (removed,
 *   renamed, replaced): a synced batch is not acknowledged, and the writer halts the same way;
 * - a bug of ours throws after a batch was synced (publishing it): the writer halts the same way
 *   rather than write the next batch over lines it cannot account for.
 */
import { BatchGathering, GATHER_POLICY, type NextBatch, nextBatch } from "../batch_gathering.ts";
import { errorCodeOf } from "../../observe/error_code.ts";
import { type DataFile, writeFully } from "./file_layer.ts";

/** Most entries in one batch: bounds a batch's bytes and its callers' wait. */
export const MAX_BATCH = 1024;

/** A batch as the writer sees it: the bytes to append, whatever else the store keeps in it. */
export interface WriterBatch<Entry> {
  readonly entries: readonly Entry[];
  readonly bytes: Uint8Array;
}

/** What the writer appends to, and whom it tells. */
export interface WriterOptions<Entry, Batch extends WriterBatch<Entry>> {
  readonly file: DataFile;
  /** Length of the durable part of the file: the next batch is written here. */
  readonly fileLength: number;
  /** Turns queued entries into a batch's bytes, in queue order; called once per batch. */
  readonly encode: (entries: Entry[]) => Batch;
  readonly onWarning: (message: string) => void;
  /** Told of each batch's fdatasync, for metrics. */
  readonly onBatchSynced?: (seconds: number, entries: number) => void;
  /**
   * Called after each batch's fdatasync, before it is acknowledged: a reason when the file
   * written is no longer the data file (see the fail-stop rules), else undefined.
   */
  readonly checkFile?: () => Promise<string | undefined>;
  /** The writer halted (fail-stop rules): why, in one line. */
  readonly onHalted: (reason: string) => void;
  /** A batch is durable; called in file order, once per batch. Publishes and answers it. */
  readonly onDurable: (batch: Batch) => void;
  /**
   * These entries were not acknowledged. Answers them: with `outcomeUnknown` false nothing of
   * them is left in the file; with it true some may be (the writer halted).
   */
  readonly onFailed: (entries: readonly Entry[], reason: string, outcomeUnknown: boolean) => void;
}

/** Queue plus group commit over one data file. */
export class GroupWriter<Entry, Batch extends WriterBatch<Entry>> {
  readonly #options: WriterOptions<Entry, Batch>;
  readonly #queue: Entry[] = [];
  #durableLength: number;
  /**
   * True from the first queued entry until the queue is empty, no batch is on its way and the
   * writer no longer waits for the last batch's callers.
   */
  #busy = false;
  #halted: string | undefined;
  #idleWaiters: (() => void)[] = [];
  readonly #gathering = new BatchGathering();

  constructor(options: WriterOptions<Entry, Batch>) {
    this.#options = options;
    this.#durableLength = options.fileLength;
  }

  /** Queues an entry; it is answered by `onDurable` or `onFailed`. */
  append(entry: Entry): void {
    this.#queue.push(entry);
    this.#gathering.arrived(this.#queue.length);
    if (this.#busy) return;
    this.#busy = true;
    // After the current microtasks, so creates made in the same turn share the first batch.
    queueMicrotask(() => {
      this.#drain().catch((error) => this.#options.onWarning(`Store writer failed: ${error}`));
    });
  }

  /** Why the writer stopped taking entries until a restart (the fail-stop rules), once it has. */
  get halted(): string | undefined {
    return this.#halted;
  }

  /** Bytes of the durable part of the data file (every batch in it was reported durable). */
  get durableLength(): number {
    return this.#durableLength;
  }

  /**
   * Resolves once every queued entry has been answered. The wait for the last batch's callers
   * ends at once, and no batch after it waits for its own: whoever waits for the writer to be
   * idle (a close) brings no more creates.
   */
  idle(): Promise<void> {
    if (!this.#busy) return Promise.resolve();
    return this.#gathering.withoutWaits(() =>
      new Promise<void>((resolve) => this.#idleWaiters.push(resolve))
    );
  }

  /** Commits batch after batch until the queue is empty and the last batch's callers are away. */
  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const entries = this.#queue.splice(0, MAX_BATCH);
        if (this.#halted !== undefined) {
          this.#options.onFailed(entries, this.#halted, false);
          continue;
        }
        let batch: Batch;
        try {
          batch = this.#options.encode(entries);
        } catch (error) {
          // A bug of ours, before anything reached the file: nothing was saved.
          this.#options.onWarning(`Store writer failed: ${errorCodeOf(error)}`);
          this.#options.onFailed(entries, "internal store error", false);
          continue;
        }
        const next = await this.#commit(batch);
        await this.#gathering.wait(next, this.#queue.length);
      }
    } finally {
      this.#busy = false;
      for (const resolve of this.#idleWaiters.splice(0)) resolve();
    }
  }

  /**
   * Writes and syncs one batch, then reports it durable or applies the failure rules. Returns what
   * the next batch waits for when this one was reported durable, else undefined.
   */
  async #commit(batch: Batch): Promise<NextBatch | undefined> {
    const { file, checkFile } = this.#options;
    let failure = await attempt("write", () => writeFully(file, batch.bytes, this.#durableLength));
    let syncSeconds = 0;
    if (failure === undefined) {
      const syncStarted = performance.now();
      // A failed fdatasync counts as a failed batch: the kernel may have dropped those pages, so
      // the batch is cut and rewritten from scratch, never synced again in the hope it now works.
      failure = await attempt("fdatasync", () => file.datasync());
      syncSeconds = (performance.now() - syncStarted) / 1000;
    }
    try {
      if (failure === undefined) {
        this.#options.onBatchSynced?.(syncSeconds, batch.entries.length);
        const moved = await checkFile?.();
        if (moved !== undefined) failure = { reason: moved, halts: true };
      }
      if (failure === undefined) {
        this.#durableLength += batch.bytes.length;
        // Counted before the callers are answered: those who come back on the same turn (in one
        // process) are counted as they are queued.
        const queued = this.#queue.length;
        this.#options.onDurable(batch);
        return nextBatch(GATHER_POLICY, {
          ms: syncSeconds * 1000,
          size: batch.entries.length,
          queued,
          maxBatch: MAX_BATCH,
        });
      }
    } catch (error) {
      // A bug of ours once the batch was synced: which of its pets count is unknown, and the next
      // batch must not be written over them. So the writer halts (the fail-stop rules).
      failure = { reason: `internal store error: ${errorCodeOf(error)}`, halts: true };
    }
    const { reason, outcomeUnknown } = await this.#cutBack(failure);
    this.#options.onFailed(batch.entries, reason, outcomeUnknown);
    return undefined;
  }

  /**
   * After a failed batch: cut whatever reached the file past the durable end, so it ends on a
   * complete line; halt when that fails or `failure` asks to. Says what to tell the batch's callers.
   */
  async #cutBack(failure: BatchFailure): Promise<{ reason: string; outcomeUnknown: boolean }> {
    let { reason, halts } = failure;
    if (!halts) {
      try {
        // Synced too: a cut that is not on disk could let a crash bring back pets answered
        // "nothing saved".
        await this.#options.file.truncate(this.#durableLength);
        await this.#options.file.datasync();
      } catch (truncateError) {
        reason = `cannot cut the data file back after a failed batch (${reason}): ${
          errorCodeOf(truncateError)
        }`;
        halts = true;
      }
    }
    if (halts) {
      this.#halted = reason;
      this.#options.onHalted(reason);
    }
    return { reason, outcomeUnknown: halts };
  }
}

/** Why a batch was not acknowledged, and whether the writer must halt (the fail-stop rules). */
type BatchFailure = { readonly reason: string; readonly halts: boolean };

/** Runs one I/O step of a batch; why it failed (no file path), or undefined. */
async function attempt(step: string, io: () => Promise<void>): Promise<BatchFailure | undefined> {
  try {
    await io();
    return undefined;
  } catch (error) {
    return { reason: `${step} of the data file failed: ${errorCodeOf(error)}`, halts: false };
  }
}
