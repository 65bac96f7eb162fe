/**
 * The single writer: creates queue up while a batch is being written, and each batch goes to disk
 * with one write and one fdatasync (group commit). Callers are answered only after that, and the
 * in-memory index learns of the batch only then, so nothing a reader sees can be lost.
 *
 * Failure rules (ENOSPC, EIO, …):
 * - every caller of the failed batch is answered `unavailable`;
 * - the file is truncated back to the end of the last durable batch, so it again ends on a
 *   complete line; if even that fails, the next batch retries the truncate before writing;
 * - the ids of the failed batch are never handed out again (they may be on disk);
 * - the next batch is tried normally, so the store recovers once space returns.
 */
import type { NewPet } from "../../schemas/pet.ts";
import { petJson } from "../pet_json.ts";
import type { StatusIndex } from "../status_index.ts";
import type { CreateOutcome, IdempotencyClaim, StoredPet } from "../store.ts";
import type { DataFile } from "./file_layer.ts";
import type { IdempotencyKeys } from "./idempotency_keys.ts";
import type { PetTexts } from "./pet_texts.ts";
import { PET_RECORD_PREFIX, recordSuffix } from "./record.ts";

/** Most creates in one batch: bounds a batch's bytes and its callers' wait. */
const MAX_BATCH = 1024;

const encoder = new TextEncoder();
const PREFIX_BYTES = encoder.encode(PET_RECORD_PREFIX);

/** A create waiting for its batch. */
interface PendingCreate {
  readonly pet: NewPet;
  readonly claim: IdempotencyClaim | undefined;
  readonly resolve: (outcome: CreateOutcome) => void;
}

/** What the writer appends to. */
export interface WriterState {
  readonly file: DataFile;
  readonly texts: PetTexts;
  readonly index: StatusIndex;
  readonly keys: IdempotencyKeys;
  /** Length of the durable part of the file: the next batch is written here. */
  readonly fileLength: number;
  readonly nextId: number;
  /** False skips fdatasync: for benchmarks only, a crash may lose acknowledged pets. */
  readonly fsync: boolean;
  readonly onWarning: (message: string) => void;
}

/** Queue plus group commit over one data file. */
export class GroupWriter {
  readonly #state: WriterState;
  readonly #queue: PendingCreate[] = [];
  #fileLength: number;
  #nextId: number;
  #mustTruncate = false;
  #running: Promise<void> | undefined;

  constructor(state: WriterState) {
    this.#state = state;
    this.#fileLength = state.fileLength;
    this.#nextId = state.nextId;
  }

  /** Queues a create; resolves once its batch is durable (or failed). */
  append(pet: NewPet, claim: IdempotencyClaim | undefined): Promise<CreateOutcome> {
    return new Promise((resolve) => {
      this.#queue.push({ pet, claim, resolve });
      this.#running ??= this.#drain();
    });
  }

  /** Resolves once every queued create has been answered. */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  async #drain(): Promise<void> {
    // Let the creates of the current tick join the first batch.
    await Promise.resolve();
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, MAX_BATCH);
      try {
        await this.#writeBatch(batch);
      } catch (error) {
        // I/O failures are answered inside; this is a bug, and must not leave callers waiting.
        this.#state.onWarning(`Store writer failed: ${errorCode(error)}`);
        for (const entry of batch) {
          if (entry.claim !== undefined) this.#state.keys.release(entry.claim);
          entry.resolve({ kind: "unavailable", reason: "internal store error" });
        }
      }
    }
    this.#running = undefined;
  }

  async #writeBatch(batch: PendingCreate[]): Promise<void> {
    const { texts, index, keys } = this.#state;

    // 1. Ids in queue order, which is file order. The counter moves past the batch now, so a
    //    failed batch's ids (possibly on disk) are never given to another pet.
    const firstId = this.#nextId;
    this.#nextId += batch.length;

    // 2. Encode the batch into free arena space; each pet's text stays there once durable.
    const lines = batch.map((entry, i) => ({
      pet: petJson(firstId + i, entry.pet),
      suffix: recordSuffix(entry.claim),
    }));
    const maxBytes = lines.reduce(
      (sum, line) => sum + PREFIX_BYTES.length + 3 * (line.pet.length + line.suffix.length),
      0,
    );
    const area = texts.reserve(maxBytes);
    const spans: number[] = [];
    let at = area.offset;
    for (const line of lines) {
      area.bytes.set(PREFIX_BYTES, at);
      at += PREFIX_BYTES.length;
      const petStart = at;
      at += encoder.encodeInto(line.pet, area.bytes.subarray(at)).written;
      spans.push(petStart, at);
      at += encoder.encodeInto(line.suffix, area.bytes.subarray(at)).written;
    }
    const size = at - area.offset;

    // 3. One write at the end of the durable data, then one fdatasync. Only after both is the
    //    batch durable; any failure before that leaves the index untouched.
    const failure = await this.#persist(area.bytes, area.offset, size);
    if (failure !== undefined) {
      for (const entry of batch) {
        if (entry.claim !== undefined) keys.release(entry.claim);
        entry.resolve({ kind: "unavailable", reason: failure });
      }
      return;
    }

    // 4. Durable: publish to the index and answer every caller of the batch.
    texts.commit(size);
    this.#fileLength += size;
    batch.forEach((entry, i) => {
      const id = firstId + i;
      const status = entry.pet.status;
      texts.add(area.segment, spans[2 * i], spans[2 * i + 1]);
      const position = index.add(id, status);
      if (entry.claim !== undefined) {
        keys.addDurable(entry.claim, position);
        keys.release(entry.claim);
      }
      const pet: StoredPet = { id, status, json: lines[i].pet };
      entry.resolve({ kind: "created", pet });
    });
  }

  /** Writes and syncs bytes at the durable end; returns a reason on failure (no file path). */
  async #persist(bytes: Uint8Array, offset: number, size: number): Promise<string | undefined> {
    const { file, fsync, onWarning } = this.#state;
    let step = "truncate";
    try {
      if (this.#mustTruncate) {
        await file.truncate(this.#fileLength);
        this.#mustTruncate = false;
      }
      step = "write";
      let written = 0;
      while (written < size) {
        const result = await file.write(
          bytes,
          offset + written,
          size - written,
          this.#fileLength + written,
        );
        written += result.bytesWritten;
      }
      step = "fdatasync";
      if (fsync) await file.datasync();
      return undefined;
    } catch (error) {
      const reason = `${step} of the data file failed: ${errorCode(error)}`;
      // Cut whatever part of the batch reached the file, so it ends on a complete line and the
      // next batch starts on a line boundary. A failed fdatasync is treated the same way: the
      // kernel may have dropped those pages, so the batch is rewritten from scratch, never synced
      // again in the hope it now works.
      try {
        await file.truncate(this.#fileLength);
      } catch (truncateError) {
        this.#mustTruncate = true;
        onWarning(
          `Cannot truncate the data file after a failed ${step}: ${
            errorCode(truncateError)
          }; will retry`,
        );
      }
      return reason;
    }
  }
}

function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : String((error as Error | undefined)?.message ?? error);
}
