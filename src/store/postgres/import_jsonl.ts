/**
 * `import`: a JSON-lines file or backup into an empty database, every id, value and key kept.
 * Safety rules, in order:
 *   1. the data directory's lock is taken (not for a backup): a service still writing refuses it;
 *   2. `verify`'s judgement runs first: any damage stops the import before the database is
 *      touched; the copy reads the same lines again, up to the end verify kept;
 *   3. one transaction, into a database with no pets; the counter is set to the highest id.
 */
import type { DatabaseConfig } from "../../config/config.ts";
import { errorCodeOf } from "../../observe/error_code.ts";
import { type DataFile, nodeFileLayer } from "../jsonl/file_layer.ts";
import { acquireLock } from "../jsonl/lock.ts";
import { type FileKind, fileSource, readRecords } from "../catalogue/read_records.ts";
import {
  copyWarnings,
  type RecordReport,
  type ToolResult,
  verifySource,
} from "../catalogue/report.ts";
import { verifyDataFile } from "../jsonl/verify.ts";
import { connectDatabase, describeDatabaseError } from "./connect.ts";
import type { Database, Queryable } from "./database.ts";
import { findPrimaryOnce } from "./primary_finder.ts";
import { insertPets, type PetInsert } from "./pet_rows.ts";
import { migrate } from "./schema.ts";

/** How an import ended: the file read, the keys and the highest id copied; or why not. */
export type ImportResult = ToolResult<{ file: string; keys: number; lastId: number }>;

/** Rows per INSERT: large enough to be fast, small enough for one statement's parameters. */
const ROWS_PER_INSERT = 5000;

export async function importJsonlFile(options: {
  dataDir: string;
  backup?: string;
  database: DatabaseConfig;
  onWarning: (message: string) => void;
}): Promise<ImportResult> {
  const { dataDir, backup, database, onWarning } = options;
  const lock = backup === undefined ? await acquireLock(dataDir) : undefined;
  if (lock !== undefined && "refused" in lock) return { ok: false, reason: lock.refused };
  try {
    const report = backup === undefined
      ? await verifyDataFile(dataDir)
      : await verifyBackupFile(backup);
    if ("reason" in report) return { ok: false, reason: report.reason };
    const { damage } = report;
    if (damage !== undefined) {
      return {
        ok: false,
        reason: `${report.file} line ${damage.line} ${damage.reason}; nothing imported`,
      };
    }
    const asBackup = backup !== undefined;
    for (const warning of copyWarnings("import", report.file, report, asBackup)) {
      onWarning(warning);
    }
    // Only the lines verify kept: a torn last fragment is left out.
    const length = report.tornTail?.offset ?? Infinity;
    const file = await nodeFileLayer.open(report.file, "r");
    // No deadline on the whole import (the statement timeout still bounds each statement).
    let db: Database | undefined;
    try {
      db = connectDatabase(await findPrimaryOnce(database), "animal-store import", {
        deadline: false,
      });
      await migrate(db);
      const kind = backup === undefined ? "data file" : "backup";
      return await db.transaction((tx) => copyRecords(tx, file, report.file, length, kind));
    } catch (error) {
      return { ok: false, reason: `database: ${describeDatabaseError(error)}; nothing imported` };
    } finally {
      await db?.end();
      await file.close();
    }
  } finally {
    await lock?.release();
  }
}

/** `verify`'s report of a backup file, or why it cannot be read. */
async function verifyBackupFile(path: string): Promise<RecordReport | { reason: string }> {
  let file: DataFile;
  try {
    file = await nodeFileLayer.open(path, "r");
  } catch (error) {
    return { reason: `cannot read ${path}: ${errorCodeOf(error)}` };
  }
  try {
    return await verifySource(fileSource(file), { name: path, kind: "backup" });
  } finally {
    await file.close();
  }
}

async function copyRecords(
  tx: Queryable,
  file: DataFile,
  path: string,
  length: number,
  kind: FileKind,
): Promise<ImportResult> {
  const [{ count }] = await tx.query<{ count: string }>("SELECT count(*) AS count FROM pets");
  if (count !== "0") {
    return {
      ok: false,
      reason: `the database already holds ${count} pets; import into an empty database`,
    };
  }
  let keys = 0;
  const rows: PetInsert[] = [];
  const read = await readRecords(fileSource(file, 0, length), {
    kind,
    onChunk: async () => {
      for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
        await insertPets(tx, rows.slice(start, start + ROWS_PER_INSERT));
      }
      rows.length = 0;
    },
  }, (record, bytes) => {
    rows.push({ id: record.id, pet: record.pet(bytes), claim: record.claim });
    if (record.claim !== undefined) keys++;
  });
  // verify checked every line moments ago under the lock; a change now means another writer.
  if (read.damage !== undefined) {
    throw new Error(`${path} changed during the import: ${read.damage.reason}`);
  }
  // The current timeline's range of ids starts after the imported ones (failover_ids.ts).
  await tx.query(
    "UPDATE pet_id_counter SET last_id = GREATEST(last_id, $1), range_start = GREATEST(last_id, $1)",
    [read.lastId],
  );
  const { pets, byStatus, lastId } = read;
  return { ok: true, file: path, pets, byStatus, keys, lastId };
}
