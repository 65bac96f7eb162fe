/**
 * The single writer of the data file (group_commit.ts drains its queue): each batch, encoded by
 * the store in queue order, goes out in one write and one fdatasync and is reported durable
 * (`onDurable`) before the store publishes it, so nothing a reader sees can be lost. One batch at
 * a time, so the file never has a hole.
 *
 * A failed batch (ENOSPC, EIO, …): 1. its callers are answered `unavailable` only once the file is
 * cut back to the last durable batch and that cut fdatasync'd, so a caller told "nothing was
 * saved" never finds its pet after a crash; 2. its ids are never given again (they may be on
 * disk); 3. creates queued behind it are tried normally, so the store recovers once space returns.
 *
 * Fail-stop, when the writer cannot know what the file holds (as PostgreSQL panics after a failed
 * fsync): the cut-back fails, `checkFile` finds another file at the path, or a bug of ours throws
 * after a sync. The callers are told the outcome is unknown and every later create is refused
 * until a restart, whose replay keeps each whole line.
 */
import { type Committed, GroupCommit } from "../group_commit.ts";
import { errorCodeOf } from "../../observe/error_code.ts";
import { type DataFile, writeFully } from "./file_layer.ts";

/** Bounds a batch's bytes and its callers' wait. */
export const MAX_BATCH = 1024;

/** The bytes to append, and whatever else the store keeps in it. */
export type WriterBatch<Entry> = { readonly entries: readonly Entry[]; readonly bytes: Uint8Array };

export interface WriterOptions<Entry, Batch extends WriterBatch<Entry>> {
  readonly file: DataFile;
  /** The durable end: the next batch is written here. */
  readonly fileLength: number;
  /** Once per batch, in queue order. */
  readonly encode: (entries: Entry[]) => Batch;
  readonly onWarning: (message: string) => void;
  readonly onBatchSynced?: (seconds: number, entries: number) => void;
  /** After each fdatasync, before the acknowledgement: why the path no longer holds the file. */
  readonly checkFile?: () => Promise<string | undefined>;
  readonly onHalted: (reason: string) => void;
  /** In file order, once per batch: publishes and answers it. */
  readonly onDurable: (batch: Batch) => void;
  /** `outcomeUnknown`: some may be in the file (the writer halted); else none is. */
  readonly onFailed: (entries: readonly Entry[], reason: string, outcomeUnknown: boolean) => void;
}

export class GroupWriter<Entry, Batch extends WriterBatch<Entry>> {
  readonly #commits: GroupCommit<Entry>;
  #durableLength: number;
  #halted: string | undefined;

  constructor(private readonly options: WriterOptions<Entry, Batch>) {
    this.#durableLength = options.fileLength;
    this.#commits = new GroupCommit({
      maxBatch: MAX_BATCH,
      commit: (entries) => this.#commit(entries),
      onError: (error) => options.onWarning(`Store writer failed: ${error}`),
    });
  }

  /** Queues an entry; it is answered by `onDurable` or `onFailed`. */
  append(entry: Entry): void {
    this.#commits.add(entry);
  }

  /** Why the writer refuses entries until a restart, once it does. */
  get halted(): string | undefined {
    return this.#halted;
  }

  get durableLength(): number {
    return this.#durableLength;
  }

  idle(): Promise<void> {
    return this.#commits.idle();
  }

  /** Encodes, writes and syncs one batch, then reports it durable or applies the failure rules. */
  async #commit(entries: Entry[]): Promise<Committed> {
    const { file, checkFile, onFailed } = this.options;
    if (this.#halted !== undefined) return void onFailed(entries, this.#halted, false);
    let batch: Batch;
    try {
      batch = this.options.encode(entries);
    } catch (error) {
      // A bug of ours, before anything reached the file: nothing was saved.
      this.options.onWarning(`Store writer failed: ${errorCodeOf(error)}`);
      onFailed(entries, "internal store error", false);
      return undefined;
    }
    let failure = await attempt("write", () => writeFully(file, batch.bytes, this.#durableLength));
    let syncSeconds = 0;
    if (failure === undefined) {
      const syncStarted = performance.now();
      // A failed fdatasync fails the batch: the kernel may have dropped those pages, so the batch
      // is cut and written again from scratch, never synced again in the hope it now works.
      failure = await attempt("fdatasync", () => file.datasync());
      syncSeconds = (performance.now() - syncStarted) / 1000;
    }
    try {
      if (failure === undefined) {
        this.options.onBatchSynced?.(syncSeconds, batch.entries.length);
        const moved = await checkFile?.();
        if (moved !== undefined) failure = { reason: moved, halts: true };
      }
      if (failure === undefined) {
        this.#durableLength += batch.bytes.length;
        const queued = this.#commits.queue.length;
        this.options.onDurable(batch);
        return { ms: syncSeconds * 1000, queued };
      }
    } catch (error) {
      // A bug of ours once the batch was synced: which of its pets count is unknown, and the next
      // batch must not be written over them, so the writer halts.
      failure = { reason: `internal store error: ${errorCodeOf(error)}`, halts: true };
    }
    const { reason, outcomeUnknown } = await this.#cutBack(failure);
    return void onFailed(batch.entries, reason, outcomeUnknown);
  }

  /** Cuts what reached the file past the durable end; halts when that fails or `failure` asks. */
  async #cutBack(failure: BatchFailure): Promise<{ reason: string; outcomeUnknown: boolean }> {
    let { reason, halts } = failure;
    if (!halts) {
      try {
        // Synced too: a cut not on disk could let a crash bring back pets answered "nothing saved".
        await this.options.file.truncate(this.#durableLength);
        await this.options.file.datasync();
      } catch (truncateError) {
        const code = errorCodeOf(truncateError);
        reason = `cannot cut the data file back after a failed batch (${reason}): ${code}`;
        halts = true;
      }
    }
    if (halts) {
      this.#halted = reason;
      this.options.onHalted(reason);
    }
    return { reason, outcomeUnknown: halts };
  }
}

/** Why a batch was not acknowledged, and whether the writer must halt. */
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
