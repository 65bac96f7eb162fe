/**
 * The durable JSON-lines store: `DATA_DIR/pets.jsonl` replayed into memory at open, appended to
 * by one group-commit writer, guarded by `DATA_DIR/animal-store.lock`. Reads never touch the disk.
 */
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { NewPet } from "../../schemas/pet.ts";
import type { PendingCreate } from "../pending_create.ts";
import type {
  CreateOutcome,
  IdempotencyClaim,
  PageQuery,
  PetPage,
  PetPageJson,
  PetStore,
  StoredPet,
  StoreObserver,
  StoreStats,
} from "../store.ts";
import {
  type DataFile,
  errorCodeOf,
  type FileIdentity,
  type FileLayer,
  nodeFileLayer,
} from "./file_layer.ts";
import { acquireLock, type DirectoryLock } from "./lock.ts";
import { StoreOpenError } from "../open_error.ts";
import { fitsOneLine } from "./record.ts";
import { replayFile } from "./replay.ts";
import type { DurableBatch, StoreMemory } from "./store_memory.ts";
import { GroupWriter } from "./writer.ts";

/** File name of the data file in the data directory. */
export const DATA_FILE = "pets.jsonl";

/** How to open a store. */
export interface JsonlStoreOptions {
  /** Created (recursively) when missing. */
  readonly dataDir: string;
  /** Receives recoverable problems (a torn last line cut off). */
  readonly onWarning?: (message: string) => void;
  /** Receives why the store stopped taking creates until a restart (defaults to onWarning). */
  readonly onError?: (message: string) => void;
  /** The file layer; tests inject failures through it (and the benchmark skips fdatasync). */
  readonly files?: FileLayer;
  /**
   * How long to wait for a live owner of the lock to let go before refusing (default 0). A
   * service restarted right after its predecessor was told to stop may find it still exiting.
   */
  readonly lockWaitMs?: number;
  /** Told of each batch's fdatasync (metrics). */
  readonly observer?: StoreObserver;
}

/**
 * Opens the store: takes the directory lock, replays the file (cutting a torn last line) and
 * starts the writer. Throws `StoreOpenError` with a one-line message when it cannot.
 */
export async function openJsonlStore(options: JsonlStoreOptions): Promise<JsonlStore> {
  const {
    dataDir,
    onWarning = () => {},
    onError = onWarning,
    files = nodeFileLayer,
    lockWaitMs = 0,
    observer,
  } = options;
  try {
    await mkdir(dataDir, { recursive: true });
  } catch (error) {
    throw new StoreOpenError(
      `Cannot open store: cannot create data directory ${dataDir}: ${errorCodeOf(error)}`,
    );
  }
  const lock = await acquireLockWithin(dataDir, files, lockWaitMs).catch((error) => {
    throw new StoreOpenError(
      `Cannot open store: cannot lock data directory ${dataDir}: ${errorCodeOf(error)}`,
    );
  });
  if ("refused" in lock) {
    throw new StoreOpenError(
      `Cannot open store: data directory ${dataDir} is in use by ${lock.refused}`,
    );
  }
  let file: DataFile | undefined;
  try {
    file = await openDataFile(dataDir, files);
    return await loadStore(file, lock, { dataDir, onWarning, onError, observer });
  } catch (error) {
    await file?.close().catch(() => {});
    await lock.release();
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError(
      `Cannot open store: cannot read ${join(dataDir, DATA_FILE)}: ${errorCodeOf(error)}`,
    );
  }
}

/** Takes the lock, retrying while a live owner holds it, for up to `waitMs`. */
async function acquireLockWithin(dataDir: string, files: FileLayer, waitMs: number) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lock = await acquireLock(dataDir, files);
    if (!("refused" in lock) || Date.now() >= deadline) return lock;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Opens the data file for reading and positional writes, creating it durably when missing. */
async function openDataFile(dataDir: string, files: FileLayer): Promise<DataFile> {
  const path = join(dataDir, DATA_FILE);
  try {
    return await files.open(path, "r+");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  // "r+", not "a": on Linux, O_APPEND ignores the position of pwrite, and the writer needs it to
  // rewrite from the last good offset after a failed batch.
  const file = await files.open(path, "wx+");
  // The new directory entry is durable only once the directory itself is synced.
  const directory = await files.open(dataDir, "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
  return file;
}

async function loadStore(
  file: DataFile,
  lock: DirectoryLock,
  options: {
    dataDir: string;
    onWarning: (message: string) => void;
    onError: (message: string) => void;
    observer: StoreObserver | undefined;
  },
): Promise<JsonlStore> {
  const path = join(options.dataDir, DATA_FILE);
  const replayed = await replayFile(file);
  if (!replayed.ok) {
    throw new StoreOpenError(`Cannot open store: ${path} line ${replayed.line} ${replayed.reason}`);
  }
  if (replayed.tornTail !== undefined) {
    // A torn tail was never acknowledged (its fdatasync never returned): cutting it loses no
    // answered pet, and the next write must start on a line boundary.
    const { offset, length } = replayed.tornTail;
    await file.truncate(offset);
    await file.datasync();
    options.onWarning(
      `Cut a torn last line from ${path} at byte offset ${offset} (${length} bytes without a newline)`,
    );
  }
  return new JsonlStore({
    file,
    path,
    identity: await file.stat(),
    lock,
    memory: replayed.memory,
    fileLength: replayed.length,
    nextId: replayed.nextId,
    onWarning: options.onWarning,
    onError: options.onError,
    onBatchSynced: options.observer?.batchSynced.bind(options.observer),
  });
}

/** A PetStore kept in a JSON-lines file; see openJsonlStore. */
export class JsonlStore implements PetStore {
  readonly #file: DataFile;
  readonly #lock: DirectoryLock;
  readonly #memory: StoreMemory;
  readonly #writer: GroupWriter;
  #closing: Promise<void> | undefined;

  /** Use openJsonlStore. */
  constructor(parts: {
    file: DataFile;
    /** The data file's path, and what it was when opened: it must stay the file at that path. */
    path: string;
    identity: FileIdentity;
    lock: DirectoryLock;
    memory: StoreMemory;
    fileLength: number;
    nextId: number;
    onWarning: (message: string) => void;
    onError: (message: string) => void;
    onBatchSynced: ((seconds: number, creates: number) => void) | undefined;
  }) {
    this.#file = parts.file;
    this.#lock = parts.lock;
    this.#memory = parts.memory;
    this.#writer = new GroupWriter({
      file: parts.file,
      space: parts.memory,
      fileLength: parts.fileLength,
      nextId: parts.nextId,
      onWarning: parts.onWarning,
      onBatchSynced: parts.onBatchSynced,
      checkFile: () => stillTheDataFile(parts.path, parts.identity),
      onHalted: (reason) =>
        parts.onError(
          `The store takes no creates until the service is restarted: ${reason} (${parts.path})`,
        ),
      onDurable: (batch) => this.#publish(batch),
      onFailed: (entries, reason, outcomeUnknown) => this.#fail(entries, reason, outcomeUnknown),
    });
  }

  /** Number of durable pets. */
  get size(): number {
    return this.#memory.size;
  }

  /** Creates a pet; resolves once it is durable, or with why not. */
  create(pet: NewPet, idempotency?: IdempotencyClaim): Promise<CreateOutcome> {
    if (this.#closing !== undefined) {
      return Promise.resolve({ kind: "unavailable", reason: "the store is closing" });
    }
    const halted = this.#writer.halted;
    if (halted !== undefined) return Promise.resolve({ kind: "unavailable", reason: halted });
    if (!fitsOneLine(pet, idempotency)) {
      return Promise.resolve({ kind: "unavailable", reason: "the record is too large to store" });
    }
    if (idempotency !== undefined) {
      // A "new" key stays in flight until its batch is published or fails (#publish, #fail).
      const decision = this.#memory.claim(idempotency);
      if (decision.kind === "replayed") {
        return Promise.resolve({ kind: "replayed", pet: this.#memory.petAt(decision.position) });
      }
      if (decision.kind !== "new") return Promise.resolve(decision);
    }
    return this.#writer.append(pet, idempotency);
  }

  /** The pet with this id, or undefined. */
  get(id: number): StoredPet | undefined {
    return this.#memory.get(id);
  }

  /** One page in ascending id order; `hasMore` only when a further matching pet exists. */
  list(query: PageQuery): PetPage {
    return this.#memory.list(query);
  }

  /** One page as the bytes of its JSON array, copied from the pets' stored UTF-8 text. */
  listJson(query: PageQuery): PetPageJson {
    return this.#memory.listJson(query);
  }

  /** False once the writer halted: the data file needs a restart (`/readyz` answers 503). */
  isAvailable(): boolean {
    return this.#writer.halted === undefined;
  }

  /** Pets per status, data file bytes and idempotency keys held: a few reads, no scan. */
  stats(): StoreStats {
    return {
      pets: this.#memory.counts(),
      dataFileBytes: this.#writer.durableLength,
      idempotencyKeys: this.#memory.keyCount,
    };
  }

  /** Waits for pending writes, closes the file and removes the lock. Safe to call twice. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#writer.idle();
      await this.#file.close();
      await this.#lock.release();
    })();
    return this.#closing;
  }

  /** A batch is durable: readers see it, then its callers learn of it. */
  #publish(batch: DurableBatch): void {
    const pets = this.#memory.publish(batch);
    for (let i = 0; i < pets.length; i++) {
      batch.entries[i].resolve({ kind: "created", pet: pets[i] });
    }
  }

  /** Creates that were not stored: their keys may be tried again. */
  #fail(entries: readonly PendingCreate[], reason: string, outcomeUnknown: boolean): void {
    for (const entry of entries) {
      if (entry.claim !== undefined) this.#memory.release(entry.claim);
      entry.resolve({ kind: "unavailable", reason, outcomeUnknown });
    }
  }
}

/**
 * Whether the file at `path` is still the one the store writes: an operator may remove, rename
 * or replace it while the service runs, and a pet written to a file that is no longer the data
 * file would be missing at the next start. One stat a batch. (A file cut short in place keeps its
 * identity; the next start then refuses the hole it leaves, naming the line.)
 */
async function stillTheDataFile(path: string, opened: FileIdentity): Promise<string | undefined> {
  let current: FileIdentity;
  try {
    current = await stat(path);
  } catch (error) {
    const code = errorCodeOf(error);
    return code === "ENOENT"
      ? "the data file is gone from its path: removed or renamed"
      : `cannot check the data file at its path: ${code}`;
  }
  if (current.ino !== opened.ino || current.dev !== opened.dev) {
    return "another file was put at the data file's path";
  }
  return undefined;
}
