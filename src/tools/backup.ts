/**
 * `backup`: a consistent copy of the catalogue while the service keeps running (with DATABASE_URL,
 * the export of postgres_copy.ts), read from `DATA_DIR/pets.jsonl` without the lock, never written.
 *   1. The file's size S is taken first: every pet answered 201 before then lies in [0, S).
 *   2. The lines of [0, S) are copied with the start's judgement (read_records.ts): a torn last
 *      line (most often one being written) is left out, a whole record kept.
 *   3. Lines not yet answered belong to the batch on its way to disk; keeping them is what a kill -9
 *      would leave. But a failed batch is cut back (writer.ts) and answered 503, and the copy must
 *      not keep it: only the last IN_FLIGHT_WINDOW bytes can still change, and they are hashed.
 *   4. The file is fdatasync'd (an EIO fails the backup) and, after SETTLE_MS, the window read
 *      again: a cut-back changes the hash (ids are never reused), and the copy is taken again.
 *   5. Only then is the check line written (`CheckedBackup`): a copy without one is refused.
 * A backup's first and check lines in the data file are left out; the copy has one check of its
 * own. A writer that cannot even truncate keeps failed lines, as a crash then would.
 */
import { setTimeout as delay } from "node:timers/promises";
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Config } from "../config/config.ts";
import { errorCodeOf } from "../observe/error_code.ts";
import { CheckedBackup, MAX_LINE_BYTES } from "../store/catalogue/line_format.ts";
import { type ByteSink, fileSource, readRecords } from "../store/catalogue/read_records.ts";
import { installFile, openIfExists } from "../store/jsonl/file_layer.ts";
import { DATA_FILE } from "../store/jsonl/jsonl_store.ts";
import { MAX_BATCH } from "../store/jsonl/writer.ts";
import type { ToolResult } from "./report.ts";

/** Most bytes the writer can have written past its durable end: the part a cut-back may remove. */
const IN_FLIGHT_WINDOW = MAX_BATCH * MAX_LINE_BYTES;

/** Time for the writer to answer a batch whose sync returned, or to cut a failed one back. */
const SETTLE_MS = 250;

/** Copies taken before giving up when the service keeps cutting the file back. */
const ATTEMPTS = 3;

/**
 * A backup to `path`, installed atomically (a crash never leaves half a backup under its name) and
 * taken again if the service cut its file back meanwhile; or to `sink` (stdout) as it is read.
 */
export async function backupCatalogue(
  config: Config,
  to: { readonly path: string } | { readonly sink: ByteSink },
): Promise<ToolResult> {
  if ("sink" in to) return await copyCatalogue(config, to.sink);
  for (let attempt = 1;; attempt++) {
    const outcome = await installFile(to.path, (sink) => copyCatalogue(config, sink));
    if (outcome.ok || !outcome.changed || attempt === ATTEMPTS) return outcome;
  }
}

async function copyCatalogue(config: Config, sink: ByteSink): Promise<ToolResult> {
  if (config.database === undefined) return await backupDataFile({ dataDir: config.dataDir, sink });
  const { exportDatabase } = await import("./postgres_copy.ts");
  return await exportDatabase(config.database, sink);
}

/** Copies the data file's acknowledged records to `sink` (module comment); hooks for tests. */
export async function backupDataFile(options: {
  readonly dataDir: string;
  readonly sink: ByteSink;
  readonly settleMs?: number;
  /** Runs between the copy and the re-check (tests cut the file back here). */
  readonly beforeRecheck?: () => Promise<void>;
}): Promise<ToolResult> {
  const { dataDir, sink, settleMs = SETTLE_MS } = options;
  const path = join(dataDir, DATA_FILE);
  const file = await openIfExists(path, "r");
  if (file === undefined) {
    // A service creates the data file when it first starts, so a DATA_DIR without one is most
    // likely the wrong directory: an empty "backup" of it would hide that until the restore.
    const reason = `data directory ${dataDir} holds no ${DATA_FILE}: is DATA_DIR the service's?`;
    return { ok: false, changed: false, reason };
  }
  try {
    // 1. and 2.
    const size = (await file.stat()).size;
    const windowStart = Math.max(0, size - IN_FLIGHT_WINDOW);
    const copied = createHash("sha256");
    const backup = new CheckedBackup(sink);
    await backup.begin();
    const read = await readRecords(fileSource(file, 0, size), {
      onChunk: (bytes, offset) => {
        if (offset + bytes.length > windowStart) {
          copied.update(bytes.subarray(Math.max(0, windowStart - offset)));
        }
      },
      onCopy: (bytes) => backup.write(bytes),
    });
    if (read.damage !== undefined) {
      const { line, reason } = read.damage;
      return { ok: false, changed: false, reason: `${path} line ${line} ${reason}` };
    }
    // 4.
    await file.datasync().catch((error) => {
      // Best effort: only EIO (bytes lost) fails the backup; another error (EBADF on a
      // read-only descriptor on some systems) is ignored, and SETTLE_MS still applies.
      if (errorCodeOf(error) === "EIO") throw error;
    });
    await delay(settleMs);
    await options.beforeRecheck?.();
    const end = read.length;
    const reason = `${path} was cut back during the backup (a write failed in the service)`;
    const changed = { ok: false, changed: true, reason } as const;
    if ((await file.stat()).size < end) return changed;
    const now = createHash("sha256");
    const source = fileSource(file, Math.min(windowStart, end), end);
    const buffer = new Uint8Array(1024 * 1024);
    for (let count; (count = await source.read(buffer, 0, buffer.length)) > 0;) {
      now.update(buffer.subarray(0, count));
    }
    if (now.digest("hex") !== copied.digest("hex")) return changed;
    // 5. Only a copy found consistent gets its check line.
    await backup.end(read.pets);
    const { pets, byStatus, tornTail, missingNewline } = read;
    return { ok: true, pets, byStatus, tornTail, missingNewline };
  } finally {
    await file.close();
  }
}
