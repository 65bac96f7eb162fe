/**
 * The single writer of the data file: it writes and fdatasyncs the bytes it is handed and reports
 * the outcome. Entries queue up while earlier batches are on their way to disk; each batch is
 * encoded by the store (`encode`: ids and lines, in queue order, which is file order) and goes to
 * disk with one write and one fdatasync (group commit). The writer reports each batch once it is
 * durable (`onDurable`); the store then publishes it to memory and answers its callers, so nothing
 * a reader sees can be lost.
 *
 * Pipelining: up to MAX_BATCHES_IN_FLIGHT batches are in flight at once. An fdatasync is mostly
 * waiting for the device, and a second one issued meanwhile overlaps it (docs/performance.md,
 * "Store"). Three rules keep this as safe as one batch at a time:
 * - writes are issued one after another, in file order, each after the previous one returned, so
 *   the file never has a hole, whatever a crash interrupts;
 * - a batch is reported durable (then published: index, answers) only after its own fdatasync
 *   returned and after every earlier batch was reported, so ids appear in order and a list walk
 *   never skips one;
 * - a failed batch fails every batch written after it.
 *
 * Failure rules (ENOSPC, EIO, …):
 * - every caller of the failed batch, and of the batches in flight behind it, is answered
 *   `unavailable`; no new batch starts until all of them have settled;
 * - the file is then truncated back to the end of the last durable batch, so it again ends on a
 *   complete line, and only then are those callers told that nothing was saved;
 * - the ids of failed batches are never handed out again (they may be on disk): the store moves
 *   its id counter past a batch when it encodes it;
 * - the next batch is tried normally, so the store recovers once space returns.
 *
 * Fail-stop rules, for when the writer cannot know what the file holds (as PostgreSQL panics
 * after a failed fsync rather than retry it):
 * - the cut-back itself fails (EIO from a dying disk): some of the failed batches' pets may be on
 *   disk, whole or torn. Their callers are told the outcome is unknown, and the writer halts:
 *   every later create is refused, writing nothing, until a restart, whose replay keeps each
 *   whole line (with its idempotency key, so a retry with that key returns the pet once) and cuts
 *   a torn one;
 * - `checkFile` reports that the file written is no longer the data file at its path (removed,
 *   renamed, replaced): a synced batch is not acknowledged, and the writer halts the same way.
 */
import { type DataFile, errorCodeOf, writeFully } from "./file_layer.ts";

/** Most entries in one batch: bounds a batch's bytes and its callers' wait. */
export const MAX_BATCH = 1024;

/** Most batches writing or syncing at once: two overlap fdatasyncs; more gave no further gain. */
export const MAX_BATCHES_IN_FLIGHT = 2;

/** A batch as the writer sees it: the bytes to append, whatever else the store keeps in it. */
export interface WriterBatch<Entry> {
  readonly entries: readonly Entry[];
  readonly bytes: Uint8Array;
}

/** The last batch started: later batches wait on its write and on its publication. */
interface BatchInFlight {
  /** True once its write returned; false when it failed or was skipped. */
  readonly written: Promise<boolean>;
  /** Settles once its callers have been answered. */
  readonly settled: Promise<void>;
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

/** Queue plus pipelined group commit over one data file. */
export class GroupWriter<Entry, Batch extends WriterBatch<Entry>> {
  readonly #options: WriterOptions<Entry, Batch>;
  readonly #queue: Entry[] = [];
  #durableLength: number;
  /** Where the next batch is written: the durable end plus the batches in flight. */
  #writeEnd: number;
  #inFlight = 0;
  /** Size of the batch started last (the one in flight, when only one is). */
  #lastBatchSize = 0;
  #last: BatchInFlight | undefined;
  /** Why the pipeline failed; set from a failed batch until the truncate after it. */
  #failure: BatchFailure | undefined;
  /** Failed batches, answered once the file is cut back (so a 503'd pet is not in the file). */
  readonly #failed: Batch[] = [];
  #halted: string | undefined;
  #pumpScheduled = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: WriterOptions<Entry, Batch>) {
    this.#options = options;
    this.#durableLength = options.fileLength;
    this.#writeEnd = options.fileLength;
  }

  /** Queues an entry; it is answered by `onDurable` or `onFailed`. */
  append(entry: Entry): void {
    this.#queue.push(entry);
    if (!this.#pumpScheduled) {
      this.#pumpScheduled = true;
      // A microtask later, so the entries of the current tick join the first batch.
      queueMicrotask(() => {
        this.#pumpScheduled = false;
        this.#pump();
      });
    }
  }

  /** Why the writer stopped taking entries until a restart (the fail-stop rules), once it has. */
  get halted(): string | undefined {
    return this.#halted;
  }

  /** Bytes of the durable part of the data file (every batch in it was reported durable). */
  get durableLength(): number {
    return this.#durableLength;
  }

  /** Resolves once every queued entry has been answered. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #isIdle(): boolean {
    // A failure is cleared only once the file has been cut back: `close()` must not close the
    // file under that truncate.
    return this.#queue.length === 0 && this.#inFlight === 0 && this.#failure === undefined;
  }

  /** Starts batches while there are entries and room in the pipeline. */
  #pump(): void {
    // After a failure nothing new starts until the batches behind it have settled and the file
    // is cut back; once halted, nothing new starts at all (and nothing of these is written).
    if (this.#halted !== undefined) this.#answerUnavailable(this.#queue.splice(0), this.#halted);
    const room = this.#failure !== undefined ? 0 : MAX_BATCHES_IN_FLIGHT - this.#inFlight;
    for (let i = 0; i < room && this.#queue.length > 0; i++) {
      // A batch behind one in flight waits until it holds at least half as many entries: a
      // batch of one or two costs a whole fdatasync and its own CPU for almost no creates
      // (starting at once made batches of 1 alternate with full ones).
      if (this.#inFlight > 0 && 2 * this.#queue.length < this.#lastBatchSize) break;
      this.#lastBatchSize = Math.min(this.#queue.length, MAX_BATCH);
      this.#start(this.#queue.splice(0, MAX_BATCH));
    }
    if (this.#isIdle()) { for (const resolve of this.#idleWaiters.splice(0)) resolve(); }
  }

  #start(entries: Entry[]): void {
    let batch: Batch;
    try {
      batch = this.#options.encode(entries);
    } catch (error) {
      // A bug, not an I/O failure: nothing reached the file; the callers must not be left waiting.
      return this.#internalError(entries, error);
    }
    const { file, checkFile } = this.#options;
    const position = this.#writeEnd;
    this.#writeEnd += batch.bytes.length;
    this.#inFlight++;
    const previous = this.#last;
    let failure: BatchFailure | undefined;
    const written = (async () => {
      if (previous !== undefined && !await previous.written) return false;
      failure = await attempt("write", () => writeFully(file, batch.bytes, position));
      return failure === undefined;
    })();
    const settled = (async () => {
      if (await written) {
        const syncStarted = performance.now();
        // A failed fdatasync counts as a failed batch: the kernel may have dropped those pages, so
        // the batch is cut and rewritten from scratch, never synced again in the hope it now works.
        failure = await attempt("fdatasync", () => file.datasync());
        const seconds = (performance.now() - syncStarted) / 1000;
        this.#options.onBatchSynced?.(seconds, batch.entries.length);
        const moved = failure === undefined ? await checkFile?.() : undefined;
        if (moved !== undefined) failure = { reason: moved, halts: true };
      }
      if (previous !== undefined) await previous.settled;
      try {
        this.#settle(batch, failure);
      } catch (error) {
        // I/O failures are answered inside; this is a bug, and must not leave callers waiting.
        this.#internalError(batch.entries, error);
      }
    })();
    this.#last = { written, settled };
    void settled.then(async () => {
      this.#inFlight--;
      if (this.#inFlight === 0) {
        this.#last = undefined;
        if (this.#failure !== undefined) await this.#cutBack();
      }
      this.#pump();
    });
  }

  /** Reports a durable batch, or holds a failed one until the file is cut back. */
  #settle(batch: Batch, failure: BatchFailure | undefined): void {
    // A batch behind a failed one fails too: its bytes follow ones that will be cut away.
    this.#failure ??= failure;
    if (this.#failure !== undefined) {
      this.#failed.push(batch);
      return;
    }
    this.#durableLength += batch.bytes.length;
    this.#options.onDurable(batch);
  }

  #answerUnavailable(entries: readonly Entry[], reason: string, outcomeUnknown = false): void {
    if (entries.length > 0) this.#options.onFailed(entries, reason, outcomeUnknown);
  }

  #internalError(entries: readonly Entry[], error: unknown): void {
    this.#options.onWarning(`Store writer failed: ${errorCodeOf(error)}`);
    this.#answerUnavailable(entries, "internal store error");
  }

  /**
   * After a failure, once nothing is in flight: cut whatever reached the file past the durable end,
   * so it ends on a complete line and the next batch starts on a line boundary; then answer the
   * failed batches.
   */
  async #cutBack(): Promise<void> {
    let { reason, halts } = this.#failure!;
    this.#writeEnd = this.#durableLength;
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
    this.#failure = undefined;
    for (const batch of this.#failed.splice(0)) {
      this.#answerUnavailable(batch.entries, reason, halts);
    }
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
