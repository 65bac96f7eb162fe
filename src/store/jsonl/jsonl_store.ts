/**
 * The durable JSON-lines store: `DATA_DIR/pets.jsonl` replayed into memory at open, appended to
 * by one group-commit writer, guarded by `DATA_DIR/animal-store.lock`. Reads never touch the disk.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { NewPet } from "../../schemas/pet.ts";
import type { StatusIndex } from "../status_index.ts";
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
import { type DataFile, type FileLayer, nodeFileLayer } from "./file_layer.ts";
import type { IdempotencyKeys } from "./idempotency_keys.ts";
import { acquireLock, type DirectoryLock } from "./lock.ts";
import { StoreOpenError } from "../open_error.ts";
import type { PetTexts } from "./pet_texts.ts";
import { MAX_LINE_BYTES, replayFile } from "./replay.ts";
import { GroupWriter } from "./writer.ts";

/** File name of the data file in the data directory. */
export const DATA_FILE = "pets.jsonl";

/** How to open a store. */
export interface JsonlStoreOptions {
  /** Created (recursively) when missing. */
  readonly dataDir: string;
  /**
   * False skips fdatasync. UNSAFE, for benchmarks only: a crash or power cut may then lose
   * pets that were already answered as created.
   */
  readonly fsync?: boolean;
  /** Receives recoverable problems (a torn last line cut off, a failed truncate). */
  readonly onWarning?: (message: string) => void;
  /** The file layer; tests inject failures through it. */
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
    fsync = true,
    onWarning = () => {},
    files = nodeFileLayer,
    lockWaitMs = 0,
    observer,
  } = options;
  try {
    await mkdir(dataDir, { recursive: true });
  } catch (error) {
    throw new StoreOpenError(
      `Cannot open store: cannot create data directory ${dataDir}: ${codeOf(error)}`,
    );
  }
  const lock = await acquireLockWithin(dataDir, files, lockWaitMs).catch((error) => {
    throw new StoreOpenError(
      `Cannot open store: cannot lock data directory ${dataDir}: ${codeOf(error)}`,
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
    return await loadStore(file, lock, { dataDir, fsync, onWarning, observer });
  } catch (error) {
    await file?.close().catch(() => {});
    await lock.release();
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError(
      `Cannot open store: cannot read ${join(dataDir, DATA_FILE)}: ${codeOf(error)}`,
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
    fsync: boolean;
    onWarning: (message: string) => void;
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
  const { texts, index, keys } = replayed;
  const writer = new GroupWriter({
    file,
    texts,
    index,
    keys,
    fileLength: replayed.length,
    nextId: replayed.nextId,
    fsync: options.fsync,
    onWarning: options.onWarning,
    onBatchSynced: options.observer?.batchSynced.bind(options.observer),
  });
  return new JsonlStore({ file, lock, texts, index, keys, writer });
}

/** A PetStore kept in a JSON-lines file; see openJsonlStore. */
export class JsonlStore implements PetStore {
  readonly #file: DataFile;
  readonly #lock: DirectoryLock;
  readonly #texts: PetTexts;
  readonly #index: StatusIndex;
  readonly #keys: IdempotencyKeys;
  readonly #writer: GroupWriter;
  #closing: Promise<void> | undefined;

  /** Use openJsonlStore. */
  constructor(parts: {
    file: DataFile;
    lock: DirectoryLock;
    texts: PetTexts;
    index: StatusIndex;
    keys: IdempotencyKeys;
    writer: GroupWriter;
  }) {
    this.#file = parts.file;
    this.#lock = parts.lock;
    this.#texts = parts.texts;
    this.#index = parts.index;
    this.#keys = parts.keys;
    this.#writer = parts.writer;
  }

  /** Number of durable pets. */
  get size(): number {
    return this.#index.size;
  }

  /** Creates a pet; resolves once it is durable, or with why not. */
  create(pet: NewPet, idempotency?: IdempotencyClaim): Promise<CreateOutcome> {
    if (this.#closing !== undefined) {
      return Promise.resolve({ kind: "unavailable", reason: "the store is closing" });
    }
    if (!fitsOneLine(pet, idempotency)) {
      return Promise.resolve({ kind: "unavailable", reason: "the record is too large to store" });
    }
    if (idempotency !== undefined) {
      const decision = this.#keys.claim(idempotency);
      if (decision.kind === "replayed") {
        return Promise.resolve({ kind: "replayed", pet: this.#petAt(decision.position) });
      }
      if (decision.kind !== "new") return Promise.resolve(decision);
    }
    return this.#writer.append(pet, idempotency);
  }

  /** The pet with this id, or undefined. */
  get(id: number): StoredPet | undefined {
    const position = this.#index.positionOf(id);
    return position < 0 ? undefined : this.#petAt(position);
  }

  /** One page in ascending id order; `hasMore` only when a further matching pet exists. */
  list(query: PageQuery): PetPage {
    const page = this.#index.page(query.status, query.afterId, query.limit);
    const pets = page.ids.map((id) => this.#petAt(this.#index.positionOf(id)));
    return { pets, hasMore: page.hasMore };
  }

  /** One page as the bytes of its JSON array, copied from the pets' stored UTF-8 text. */
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
    body[0] = OPEN_BRACKET;
    let offset = 1;
    for (let i = 0; i < count; i++) {
      if (i > 0) body[offset++] = COMMA;
      offset = this.#texts.copyTo(positions[i], body, offset);
    }
    body[offset] = CLOSE_BRACKET;
    return {
      body,
      firstId: count === 0 ? 0 : page.ids[0],
      lastId: count === 0 ? 0 : page.ids[count - 1],
      count,
      hasMore: page.hasMore,
    };
  }

  /** Pets per status, data file bytes and idempotency keys held: a few reads, no scan. */
  stats(): StoreStats {
    const index = this.#index;
    const available = index.count("available");
    const pending = index.count("pending");
    const sold = index.count("sold");
    return {
      pets: { available, pending, sold, none: index.size - available - pending - sold },
      dataFileBytes: this.#writer.durableLength,
      idempotencyKeys: this.#keys.size,
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

  #petAt(position: number): StoredPet {
    const json = this.#texts.text(position);
    return { id: this.#index.idAt(position), status: statusOf(json), json };
  }
}

/**
 * Replay refuses lines over MAX_LINE_BYTES, so the writer must never write one. A bound on the
 * encoded length (3 bytes per UTF-16 unit, 6 per escaped claim character) is enough: a pet that
 * passed the NewPet schema is far below it.
 */
function fitsOneLine(pet: NewPet, claim: IdempotencyClaim | undefined): boolean {
  const claimUnits = claim === undefined
    ? 0
    : claim.scope.length + claim.key.length + claim.digest.length;
  return 3 * pet.name.length + 6 * claimUnits + 256 <= MAX_LINE_BYTES;
}

const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;

/** The status is the last field of the pet text, when present. */
function statusOf(json: string): StoredPet["status"] {
  if (json.endsWith(`"available"}`)) return "available";
  if (json.endsWith(`"pending"}`)) return "pending";
  if (json.endsWith(`"sold"}`)) return "sold";
  return undefined;
}

function codeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : String((error as Error | undefined)?.message ?? error);
}
