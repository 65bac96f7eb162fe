/**
 * The PostgreSQL side of the data tools, loaded only with DATABASE_URL: `backup` exports the pets
 * as a file backup, `import` copies a data file or a backup into an empty database, every id,
 * value and key kept.
 */
import type { DatabaseConfig } from "../config/config.ts";
import { errorCodeOf } from "../observe/error_code.ts";
import { CheckedBackup } from "../store/catalogue/backup_check.ts";
import { encodePetRecords, maxRecordBytes, petRecord } from "../store/catalogue/line_format.ts";
import { type ByteSink, fileSource, readRecords } from "../store/catalogue/read_records.ts";
import { type DataFile, nodeFileLayer } from "../store/jsonl/file_layer.ts";
import { acquireLock } from "../store/jsonl/lock.ts";
import {
  type Database,
  describeDatabaseError,
  type Queryable,
} from "../store/postgres/database.ts";
import { connectPrimaryOnce } from "../store/postgres/failover.ts";
import {
  insertPets,
  migrate,
  type PetInsert,
  petOf,
  type PetRow,
} from "../store/postgres/schema.ts";
import { emptyStatusCounts } from "../store/store.ts";
import { copyWarnings, type RecordReport, type ToolResult, verifySource } from "./report.ts";
import { verifyDataFile } from "./verify.ts";

/** Rows per page or INSERT: fast, with memory flat and within one statement's parameters. */
const ROWS_PER_STATEMENT = 5000;

type ExportRow = PetRow & Record<`idempotency_${"scope" | "key" | "digest"}`, string | null>;

/**
 * `backup` with DATABASE_URL, from one REPEATABLE READ, READ ONLY snapshot (every pet answered 201
 * before it began, nothing half-made, no writer blocked), in keyset pages.
 */
export async function exportDatabase(options: {
  database: DatabaseConfig;
  sink: ByteSink;
}): Promise<ToolResult> {
  let db: Database | undefined;
  try {
    db = await connectPrimaryOnce(options.database, "animal-store backup", 1);
    return await db.transaction(async (tx) => {
      const backup = new CheckedBackup(options.sink);
      await backup.begin();
      const byStatus = emptyStatusCounts();
      let pets = 0;
      let lastId = "0";
      for (;;) {
        const rows = await tx.query<ExportRow>(
          `SELECT id, name, category_id, status,
                  idempotency_scope, idempotency_key, idempotency_digest
           FROM pets WHERE id > $1::bigint ORDER BY id LIMIT $2`,
          [lastId, ROWS_PER_STATEMENT],
        );
        if (rows.length === 0) break;
        const records = rows.map((row) => {
          const claim = row.idempotency_key === null ? undefined : {
            scope: row.idempotency_scope ?? "",
            key: row.idempotency_key,
            digest: row.idempotency_digest ?? "",
          };
          byStatus[row.status ?? "none"]++;
          return petRecord(Number(row.id), petOf(row), claim);
        });
        const page = new Uint8Array(records.reduce((sum, r) => sum + maxRecordBytes(r), 0));
        const { end } = encodePetRecords(records, page, 0);
        await backup.write(page.subarray(0, end));
        pets += rows.length;
        lastId = rows[rows.length - 1].id;
      }
      await backup.end(pets);
      return { ok: true as const, pets, byStatus };
    }, { begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" });
  } catch (error) {
    return { ok: false, reason: `database: ${describeDatabaseError(error)}` };
  } finally {
    await db?.end();
  }
}

/** How an import ended: the file read, the keys and the highest id copied; or why not. */
export type ImportResult = ToolResult<{ file: string; keys: number; lastId: number }>;

/**
 * `import`, in order: 1. the data directory's lock is taken (not for a backup): a service still
 * writing refuses it; 2. `verify`'s judgement runs first, so damage stops the import before the
 * database is touched; 3. one transaction, into a database with no pets, copies the lines verify
 * kept, and the counter is set to the highest id.
 */
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
    for (const warning of copyWarnings("import", report.file, report, backup !== undefined)) {
      onWarning(warning);
    }
    const file = await nodeFileLayer.open(report.file, "r");
    let db: Database | undefined;
    try {
      // No deadline on the whole import (the statement timeout still bounds each statement).
      db = await connectPrimaryOnce(database, "animal-store import");
      await migrate(db);
      return await db.transaction((tx) => copyRecords(tx, file, report, backup !== undefined));
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
  report: RecordReport,
  backup: boolean,
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
  // Only the lines verify kept: a torn last fragment is left out.
  const source = fileSource(file, 0, report.tornTail?.offset ?? Infinity);
  const read = await readRecords(source, {
    kind: backup ? "backup" : "data file",
    onChunk: async () => {
      for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
        await insertPets(tx, rows.slice(start, start + ROWS_PER_STATEMENT));
      }
      rows.length = 0;
    },
    onRecord: (record, bytes) => {
      rows.push({ id: record.id, pet: record.pet(bytes), claim: record.claim });
      if (record.claim !== undefined) keys++;
    },
  });
  // verify checked every line moments ago under the lock; a change now means another writer.
  if (read.damage !== undefined) {
    throw new Error(`${report.file} changed during the import: ${read.damage.reason}`);
  }
  // The current timeline's range of ids starts after the imported ones (store/postgres/failover.ts).
  await tx.query(
    "UPDATE pet_id_counter SET last_id = GREATEST(last_id, $1), range_start = GREATEST(last_id, $1)",
    [read.lastId],
  );
  const { pets, byStatus, lastId } = read;
  return { ok: true, file: report.file, pets, byStatus, keys, lastId };
}
