/**
 * The JSON-lines store, the one owner of its state (next id, texts, status index, keys); reads
 * never touch the disk. A create walks it top to bottom, durable before visible:
 *   1. `create` decides its idempotency key (durable: replay or conflict; in flight: conflict;
 *      new: in flight) and queues it for the writer;
 *   2. `#encode` gives a batch its ids, moving the counter past them for good (a failed batch's
 *      ids may be on disk), and encodes its lines into arena space of the texts;
 *   3. the writer writes and fdatasyncs the bytes (writer.ts);
 *   4. `#publish`: only now do the pets enter the texts, index and keys, and then their callers
 *      are answered; or `#fail`: their keys leave flight, their callers get 503.
 */
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { errorCodeOf } from "../../observe/error_code.ts";
import type { Registry } from "../../observe/metrics_registry.ts";
import type { PageQuery, PetPageJson } from "../../schemas/page.ts";
import { type NewPet, PET_STATUSES, type PetStatus } from "../../schemas/pet.ts";
import {
  encodePetRecords,
  fitsOneLine,
  maxRecordBytes,
  type PetRecord,
  petRecord,
} from "../catalogue/line_format.ts";
import { fileSource, readRecords } from "../catalogue/read_records.ts";
import { StatusIndex } from "../status_index.ts";
import {
  type CreateOutcome,
  ID_SPACE_EXHAUSTED,
  type IdempotencyClaim,
  keyId,
  MAX_PET_ID,
  type PendingCreate,
  petCountsGauge,
  type PetStore,
  type StoredPet,
  StoreOpenError,
} from "../store.ts";
import {
  type DataFile,
  type FileIdentity,
  type FileLayer,
  nodeFileLayer,
  openIfExists,
  syncDirectory,
  writeFully,
} from "./file_layer.ts";
import { acquireLock, type DirectoryLock } from "./lock.ts";
import { PetTexts } from "./pet_texts.ts";
import { GroupWriter, type WriterBatch } from "./writer.ts";

export const DATA_FILE = "pets.jsonl";

const NEWLINE = new Uint8Array([0x0a]);
const OUT_OF_IDS = Object.freeze({
  kind: "unavailable",
  reason: ID_SPACE_EXHAUSTED,
  idSpaceExhausted: true,
});

export interface JsonlStoreOptions {
  readonly dataDir: string;
  /** Hear of recoverable problems (a torn line cut off), and why creates stopped until a restart. */
  readonly onWarning?: (message: string) => void;
  readonly onError?: (message: string) => void;
  readonly files?: FileLayer;
  /** For a live owner to let go (default 0): a predecessor told to stop may still be exiting. */
  readonly lockWaitMs?: number;
}

/** Takes the directory lock, replays the file and starts the writer; else `StoreOpenError`. */
export async function openJsonlStore(options: JsonlStoreOptions): Promise<JsonlStore> {
  const { dataDir, onWarning = () => {}, onError = onWarning, files = nodeFileLayer } = options;
  const cannot = (what: string) => (error: unknown): never => {
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError(`Cannot open store: cannot ${what}: ${errorCodeOf(error)}`);
  };
  await mkdir(dataDir, { recursive: true }).catch(cannot(`create data directory ${dataDir}`));
  const lock = await acquireLockWithin(dataDir, files, options.lockWaitMs ?? 0)
    .catch(cannot(`lock data directory ${dataDir}`));
  if ("refused" in lock) throw new StoreOpenError(`Cannot open store: ${lock.refused}`);
  let file: DataFile | undefined;
  try {
    file = await openDataFile(dataDir, files);
    return await JsonlStore.load(file, lock, { dataDir, onWarning, onError });
  } catch (error) {
    await file?.close().catch(() => {});
    await lock.release();
    return cannot(`read ${join(dataDir, DATA_FILE)}`)(error);
  }
}

async function acquireLockWithin(dataDir: string, files: FileLayer, waitMs: number) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lock = await acquireLock(dataDir, files);
    if (!("refused" in lock) || Date.now() >= deadline) return lock;
    await delay(100);
  }
}

async function openDataFile(dataDir: string, files: FileLayer): Promise<DataFile> {
  const path = join(dataDir, DATA_FILE);
  const existing = await openIfExists(path, "r+", files);
  if (existing !== undefined) return existing;
  // "r+", not "a": on Linux, O_APPEND ignores the position of pwrite, and the writer needs it to
  // rewrite from the last good offset after a failed batch.
  const file = await files.open(path, "wx+");
  await syncDirectory(dataDir, files);
  return file;
}

/** A batch of creates, encoded: the writer appends `bytes`; the rest is for `#publish`. */
interface EncodedBatch extends WriterBatch<PendingCreate> {
  readonly firstId: number;
  readonly records: readonly PetRecord[];
  readonly segment: number;
  readonly spans: readonly number[];
}

export class JsonlStore implements PetStore {
  #nextId = 1;
  /** Creates are encoded in queue order: refusing the one that would pass MAX_PET_ID suffices. */
  #lastIdPromised = 0;
  readonly #texts = new PetTexts();
  readonly #index = new StatusIndex();
  /** Durable keys: the digest of their body and the position of the pet they made. */
  readonly #keys = new Map<string, { readonly digest: string; readonly position: number }>();
  /** Keys of creates queued or being written (`create` puts them in, `#publish` or `#fail` out). */
  readonly #keysInFlight = new Set<string>();
  #writer!: GroupWriter<PendingCreate, EncodedBatch>;
  #closing: Promise<void> | undefined;
  #batchSynced: ((seconds: number, creates: number) => void) | undefined;

  private constructor(private readonly file: DataFile, private readonly lock: DirectoryLock) {}

  static async load(
    file: DataFile,
    lock: DirectoryLock,
    options: Required<Pick<JsonlStoreOptions, "dataDir" | "onWarning" | "onError">>,
  ): Promise<JsonlStore> {
    const path = join(options.dataDir, DATA_FILE);
    const store = new JsonlStore(file, lock);
    const read = await store.#replay();
    if (read.damage !== undefined) {
      const { line, reason } = read.damage;
      throw new StoreOpenError(`Cannot open store: ${path} line ${line} ${reason}`);
    }
    let fileLength = read.length;
    if (read.tornTail !== undefined) {
      // A torn tail was never acknowledged (its fdatasync never returned): cutting it loses no
      // answered pet, and the next write must start on a line boundary.
      const { offset, length } = read.tornTail;
      await file.truncate(offset);
      await file.datasync();
      options.onWarning(
        `Cut a torn last line from ${path} at byte offset ${offset} (${length} bytes without a newline)`,
      );
    }
    if (read.missingNewline !== undefined) {
      // A whole record cut only of its newline may be an answered pet: kept, its newline written.
      const { offset, line } = read.missingNewline;
      await writeFully(file, NEWLINE, offset);
      await file.datasync();
      fileLength += NEWLINE.length;
      options.onWarning(
        `Added the missing newline after the last record of ${path} (line ${line}, byte offset ${offset})`,
      );
    }
    store.#nextId = read.lastId + 1;
    store.#lastIdPromised = read.lastId;
    const identity = await file.stat();
    store.#writer = new GroupWriter({
      file,
      fileLength,
      encode: (entries) => store.#encode(entries),
      onWarning: options.onWarning,
      onBatchSynced: (seconds, creates) => store.#batchSynced?.(seconds, creates),
      checkFile: () => stillTheDataFile(path, identity),
      onHalted: (reason) =>
        options.onError(
          `The store takes no creates until the service is restarted: ${reason} (${path})`,
        ),
      onDurable: (batch) => store.#publish(batch),
      onFailed: (entries, reason, outcomeUnknown) => store.#fail(entries, reason, outcomeUnknown),
    });
    return store;
  }

  get size(): number {
    return this.#index.size;
  }

  create(pet: NewPet, claim?: IdempotencyClaim): Promise<CreateOutcome> {
    const refused = this.#closing !== undefined ? "the store is closing" : this.#writer.halted ??
      (fitsOneLine(pet, claim) ? undefined : "the record is too large to store");
    if (refused !== undefined) return Promise.resolve({ kind: "unavailable", reason: refused });
    if (claim !== undefined) {
      const id = keyId(claim);
      const durable = this.#keys.get(id);
      if (durable !== undefined) {
        return Promise.resolve(
          durable.digest === claim.digest
            ? { kind: "replayed", pet: this.#petAt(durable.position) }
            : { kind: "key_reused" },
        );
      }
      if (this.#keysInFlight.has(id)) return Promise.resolve({ kind: "key_in_flight" });
    }
    // After the keys: a retry of a pet already made needs no new id.
    if (this.#lastIdPromised >= MAX_PET_ID) return Promise.resolve(OUT_OF_IDS);
    this.#lastIdPromised++;
    if (claim !== undefined) this.#keysInFlight.add(keyId(claim));
    return new Promise((resolve) => this.#writer.append({ pet, claim, resolve }));
  }

  get(id: number): StoredPet | undefined {
    const position = this.#index.positionOf(id);
    return position < 0 ? undefined : this.#petAt(position);
  }

  listJson(query: PageQuery): PetPageJson {
    const page = this.#index.page(query.status, query.afterId, query.limit);
    const count = page.ids.length;
    const positions = new Array<number>(count);
    // `[`, `]` and a comma between pets.
    let size = count === 0 ? 2 : count + 1;
    for (let i = 0; i < count; i++) {
      positions[i] = this.#index.positionOf(page.ids[i]);
      size += this.#texts.byteLength(positions[i]);
    }
    const body = new Uint8Array(size);
    body[0] = 0x5b; // [
    let offset = 1;
    for (let i = 0; i < count; i++) {
      if (i > 0) body[offset++] = 0x2c; // ,
      offset = this.#texts.copyTo(positions[i], body, offset);
    }
    body[offset] = 0x5d; // ]
    const { ids, hasMore } = page;
    return { body, firstId: ids[0] ?? 0, lastId: ids[count - 1] ?? 0, count, hasMore };
  }

  isAvailable(): boolean {
    return this.#writer.halted === undefined;
  }

  registerMetrics(registry: Registry): void {
    const setPets = petCountsGauge(registry);
    const fsync = registry.histogram(
      "animal_store_jsonl_fsync_duration_seconds",
      "Time one fdatasync of a batch of creates took (JSON-lines store).",
      { buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5] },
    ).labels();
    const batch = registry.histogram(
      "animal_store_jsonl_batch_size",
      "Creates written and fdatasync'd together (JSON-lines store).",
      { buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] }, // the writer takes ≤ 1024
    ).labels();
    const fileBytes = registry.gauge(
      "animal_store_jsonl_data_file_bytes",
      "Size of the durable part of the data file (JSON-lines store).",
    ).labels();
    const keys = registry.gauge(
      "animal_store_jsonl_idempotency_keys",
      "Idempotency keys held in memory (JSON-lines store).",
    ).labels();
    this.#batchSynced = (seconds, creates) => {
      fsync.observe(seconds);
      batch.observe(creates);
    };
    registry.onScrape(() => {
      const [available, pending, sold] = PET_STATUSES.map((status) => this.#index.count(status));
      setPets({ available, pending, sold, none: this.#index.size - available - pending - sold });
      fileBytes.set(this.#writer.durableLength);
      keys.set(this.#keys.size);
    });
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#writer.idle();
      await this.file.close();
      await this.lock.release();
    })();
    return this.#closing;
  }

  #replay() {
    // Of each chunk only the pet texts are kept, moved down over their lines' framing.
    let kept = 0;
    return readRecords(fileSource(this.file), {
      onChunk: (bytes) => {
        this.#texts.addSegment(bytes.slice(0, kept));
        kept = 0;
      },
      onRecord: (record, bytes, key) => {
        const length = record.petEnd - record.petStart;
        bytes.copyWithin(kept, record.petStart, record.petEnd);
        const segment = this.#texts.nextSegment;
        this.#add(segment, kept, kept + length, record.id, record.status, record.claim, key);
        kept += length;
      },
    });
  }

  #encode(entries: PendingCreate[]): EncodedBatch {
    const firstId = this.#nextId;
    this.#nextId += entries.length;
    const records = entries.map((entry, i) => petRecord(firstId + i, entry.pet, entry.claim));
    let maxBytes = 0;
    for (const record of records) maxBytes += maxRecordBytes(record);
    const area = this.#texts.reserve(maxBytes);
    const { spans, end } = encodePetRecords(records, area.bytes, area.offset);
    // Taken at once: a failed batch's bytes are simply never referenced.
    this.#texts.commit(end - area.offset);
    const bytes = area.bytes.subarray(area.offset, end);
    return { entries, firstId, records, segment: area.segment, spans, bytes };
  }

  /** Step 4: readers see the batch, then its callers learn of it. */
  #publish(batch: EncodedBatch): void {
    const { entries, firstId, spans, segment } = batch;
    for (let i = 0; i < entries.length; i++) {
      const { pet, claim } = entries[i];
      this.#add(segment, spans[2 * i], spans[2 * i + 1], firstId + i, pet.status, claim);
      if (claim !== undefined) this.#keysInFlight.delete(keyId(claim));
    }
    for (let i = 0; i < entries.length; i++) {
      const pet = { id: firstId + i, json: batch.records[i].petJson };
      entries[i].resolve({ kind: "created", pet });
    }
  }

  /** Creates not stored: their keys may be tried again. */
  #fail(entries: readonly PendingCreate[], reason: string, outcomeUnknown: boolean): void {
    for (const entry of entries) {
      if (entry.claim !== undefined) this.#keysInFlight.delete(keyId(entry.claim));
      entry.resolve({
        kind: "unavailable",
        reason,
        ...(outcomeUnknown ? { outcomeUnknown: "data_file_failed" as const } : {}),
      });
    }
  }

  /** Adds a durable pet whose text is bytes [start, end) of a segment; ids must ascend. */
  #add(
    segment: number,
    start: number,
    end: number,
    id: number,
    status: PetStatus | undefined,
    claim: IdempotencyClaim | undefined,
    key = claim && keyId(claim),
  ): void {
    this.#texts.add(segment, start, end);
    const position = this.#index.add(id, status);
    // One pet per key: the replay refuses a file with two, and `create` never writes a second.
    if (claim !== undefined) this.#keys.set(key!, { digest: claim.digest, position });
  }

  #petAt(position: number): StoredPet {
    return { id: this.#index.idAt(position), json: this.#texts.text(position) };
  }
}

/** An operator may replace the file: one async stat a batch (`statSync` would stall requests). */
async function stillTheDataFile(path: string, opened: FileIdentity): Promise<string | undefined> {
  const current = await stat(path).catch(errorCodeOf);
  if (current === "ENOENT") return "the data file is gone from its path: removed or renamed";
  if (typeof current === "string") return `cannot check the data file at its path: ${current}`;
  if (current.ino !== opened.ino || current.dev !== opened.dev) {
    return "another file was put at the data file's path";
  }
  return undefined;
}
