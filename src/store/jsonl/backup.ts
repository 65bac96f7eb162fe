/**
 * `backup` of the JSON-lines store: copies `DATA_DIR/pets.jsonl` while a service keeps writing
 * it, without the directory lock and without touching the file (it is only read).
 *
 * Why the copy is consistent, step by step:
 *   1. The file's size S is taken first. Every pet answered 201 before that moment was written
 *      and fdatasync'd before it, so it lies within [0, S).
 *   2. The complete lines of [0, S) are copied (record_copy.ts): a line the writer is in the
 *      middle of writing has no newline yet within S and is left out, as a torn line is.
 *   3. Lines in [0, S) that no caller was answered for yet belong to batches still in flight.
 *      Most become durable and are answered 201 moments later: keeping them is harmless (it is
 *      what a kill -9 at that instant would leave, and the service replays the same). But a
 *      batch whose write or fdatasync fails is cut back (writer.ts) and its callers get 503;
 *      the copy must not keep those. The writer never cuts below its durable end, and at step 1
 *      at most IN_FLIGHT_WINDOW bytes lay beyond it, so only [S - IN_FLIGHT_WINDOW, S) can
 *      still change. That window is hashed while copying (it is 128 MiB, so for most files it
 *      is the whole file).
 *   4. After the copy, the file is fdatasync'd from here (an EIO there means the disk lost
 *      bytes, and the backup fails), and after SETTLE_MS — the time this check relies on for the
 *      writer to answer and, on a failure, cut back — the window is read again. A cut-back leaves the file shorter, or
 *      rewritten with other ids (a failed batch's ids are never reused), so any change shows in
 *      the hash: the copy is then refused as `changed` and taken again.
 * What remains: a writer that cannot even truncate (the disk refuses every operation) keeps the
 * failed lines until it can; a backup then may hold them, exactly as a crash at that moment
 * would leave them for the service's own next start.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { type DataFile, type FileLayer, nodeFileLayer } from "./file_layer.ts";
import { DATA_FILE } from "./jsonl_store.ts";
import { type ByteSink, copyRecordLines } from "./record_copy.ts";
import type { StatusCounts } from "../store.ts";
import { MAX_LINE_BYTES } from "./record.ts";
import { MAX_BATCH, MAX_BATCHES_IN_FLIGHT } from "./writer.ts";

/** Most bytes the writer can have written past its durable end: the part a cut-back may remove. */
const IN_FLIGHT_WINDOW = MAX_BATCHES_IN_FLIGHT * MAX_BATCH * MAX_LINE_BYTES;

/** Time for the writer to answer a batch whose sync returned, or to cut a failed one back. */
const SETTLE_MS = 250;

/** What a backup copied, or why it did not. */
export type BackupResult =
  | {
    readonly ok: true;
    /** The data file that was read. */
    readonly file: string;
    readonly pets: number;
    readonly byStatus: StatusCounts;
    readonly lastId: number;
    readonly bytes: number;
  }
  /** `changed`: the writer cut back lines that were copied; take the backup again. */
  | { readonly ok: false; readonly changed: boolean; readonly reason: string };

/** Options of a backup; the hooks are for tests. */
export interface BackupOptions {
  readonly dataDir: string;
  readonly sink: ByteSink;
  readonly files?: FileLayer;
  readonly settleMs?: number;
  /** Runs between the copy and the re-check (tests cut the file back here). */
  readonly beforeRecheck?: () => Promise<void>;
}

/** Copies the data file's acknowledged records to `sink`; see the module comment. */
export async function backupDataFile(options: BackupOptions): Promise<BackupResult> {
  const { dataDir, sink, files = nodeFileLayer, settleMs = SETTLE_MS } = options;
  const path = join(dataDir, DATA_FILE);
  let file: DataFile;
  try {
    file = await files.open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    // A service creates the data file when it first starts, so a DATA_DIR without one is most
    // likely the wrong directory: an empty "backup" of it would hide that until the restore.
    return {
      ok: false,
      changed: false,
      reason: `data directory ${dataDir} holds no ${DATA_FILE}: is DATA_DIR the service's?`,
    };
  }
  try {
    const size = (await file.stat()).size;
    const windowStart = Math.max(0, size - IN_FLIGHT_WINDOW);
    const copied = createHash("sha256");
    const result = await copyRecordLines(boundedSource(file, 0, size), sink, {
      check: "replay",
      onChunk: (bytes, offset) => {
        if (offset + bytes.length > windowStart) {
          copied.update(bytes.subarray(Math.max(0, windowStart - offset)));
        }
      },
    });
    if (!result.ok) {
      return { ok: false, changed: false, reason: `${path} line ${result.line} ${result.reason}` };
    }
    await file.datasync().catch((error) => {
      // Best effort: only EIO (bytes lost) fails the backup; another error (EBADF on a
      // read-only descriptor on some systems) is ignored, and SETTLE_MS still applies.
      if ((error as NodeJS.ErrnoException).code === "EIO") throw error;
    });
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    await options.beforeRecheck?.();
    const end = result.bytes;
    const now = createHash("sha256");
    if ((await file.stat()).size < end) return changedResult(path);
    const source = boundedSource(file, Math.min(windowStart, end), end);
    const buffer = new Uint8Array(1024 * 1024);
    for (let read; (read = await source.read(buffer, 0, buffer.length)) > 0;) {
      now.update(buffer.subarray(0, read));
    }
    if (now.digest("hex") !== copied.digest("hex")) return changedResult(path);
    const { pets, byStatus, lastId } = result;
    return { ok: true, file: path, pets, byStatus, lastId, bytes: end };
  } finally {
    await file.close();
  }
}

function changedResult(path: string): BackupResult {
  return {
    ok: false,
    changed: true,
    reason: `${path} was cut back during the backup (a write failed in the service)`,
  };
}

/** Reads [start, end) of a file in order. */
function boundedSource(file: DataFile, start: number, end: number) {
  let position = start;
  return {
    async read(into: Uint8Array, offset: number, length: number): Promise<number> {
      const wanted = Math.min(length, end - position);
      if (wanted <= 0) return 0;
      const { bytesRead } = await file.read(into, offset, wanted, position);
      position += bytesRead;
      return bytesRead;
    },
  };
}
