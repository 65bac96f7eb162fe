/**
 * The PostgreSQL side of the data tools, loaded only with DATABASE_URL: `backup` exports the pets
 * as a file backup, `import` copies a data file or a backup into an empty database, every id,
 * value and key kept.
 */
import { join } from "node:path";
import type { DatabaseConfig } from "../config/config.ts";
import { errorCodeOf } from "../observe/error_code.ts";
import {
  CheckedBackup,
  encodePetRecords,
  maxRecordBytes,
  petRecord,
} from "../store/catalogue/line_format.ts";
import { type ByteSink, fileSource, readRecords } from "../store/catalogue/read_records.ts";
import { type DataFile, nodeFileLayer } from "../store/jsonl/file_layer.ts";
import { DATA_FILE } from "../store/jsonl/jsonl_store.ts";
import { acquireLock } from "../store/jsonl/lock.ts";
import { describeDatabaseError, type Queryable } from "../store/postgres/database.ts";
import { withPrimary } from "../store/postgres/failover.ts";
import { migrate, petOf, type PetRow } from "../store/postgres/schema.ts";
import type { NewPet } from "../schemas/pet.ts";
import { emptyStatusCounts, type IdempotencyClaim } from "../store/store.ts";
import { copyWarnings, type ToolResult } from "./report.ts";

/** Rows per page or INSERT: fast, with memory flat and within one statement's parameters. */
const ROWS_PER_STATEMENT = 5000;

/** The key's three columns are null together (the table's CHECK). */
type ExportRow = PetRow & (IdempotencyClaim | { key: null });

/**
 * `backup` with DATABASE_URL, from one REPEATABLE READ, READ ONLY snapshot (every pet answered 201
 * before it began, nothing half-made, no writer blocked), in keyset pages.
 */
export async function exportDatabase(
  database: DatabaseConfig,
  sink: ByteSink,
): Promise<ToolResult> {
  try {
    return await withPrimary(database, "animal-store backup", (db) =>
      db.transaction(async (tx) => {
        const backup = new CheckedBackup(sink);
        await backup.begin();
        const byStatus = emptyStatusCounts();
        let pets = 0;
        let lastId = "0";
        for (;;) {
          const rows = await tx.query<ExportRow>(
            `SELECT id, name, category_id, status, idempotency_scope AS scope,
               idempotency_key AS key, idempotency_digest AS digest
             FROM pets WHERE id > $1::bigint ORDER BY id LIMIT $2`,
            [lastId, ROWS_PER_STATEMENT],
          );
          if (rows.length === 0) break;
          const records = rows.map((row) => {
            byStatus[row.status ?? "none"]++;
            return petRecord(Number(row.id), petOf(row), row.key === null ? undefined : row);
          });
          const page = new Uint8Array(records.reduce((sum, r) => sum + maxRecordBytes(r), 0));
          await backup.write(page.subarray(0, encodePetRecords(records, page, 0).end));
          pets += rows.length;
          lastId = rows[rows.length - 1].id;
        }
        await backup.end(pets);
        return { ok: true as const, pets, byStatus };
      }, { begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" }));
  } catch (error) {
    return { ok: false, reason: `database: ${describeDatabaseError(error)}` };
  }
}

/** How an import ended: the file read, the keys and the highest id copied; or why not. */
export type ImportResult = ToolResult<{ file: string; keys: number; lastId: number }>;

/** A refusal found inside the import's transaction: thrown, so that nothing is committed. */
class Refused extends Error {}

/**
 * `import`: the data directory's lock is taken (not for a backup), so a service still writing
 * refuses it; then one transaction, into a database with no pets, copies the lines as `verify`
 * judges them (any damage rolls it back) and sets the counter to the highest id.
 */
export async function importJsonlFile(options: {
  dataDir: string;
  backup?: string;
  database: DatabaseConfig;
  onWarning: (message: string) => void;
}): Promise<ImportResult> {
  const { dataDir, backup, database, onWarning } = options;
  const path = backup ?? join(dataDir, DATA_FILE);
  const lock = backup === undefined ? await acquireLock(dataDir) : undefined;
  if (lock !== undefined && "refused" in lock) return { ok: false, reason: lock.refused };
  let file: DataFile | undefined;
  try {
    file = await nodeFileLayer.open(path, "r").catch((error) => {
      throw new Refused(`cannot read ${path}: ${errorCodeOf(error)}`);
    });
    // No deadline on the whole import (the statement timeout still bounds each statement).
    const result = await withPrimary(database, "animal-store import", async (db) => {
      await migrate(db);
      return await db.transaction((tx) => copyRecords(tx, file!, path, backup !== undefined));
    });
    copyWarnings(path, result, backup !== undefined).forEach(onWarning);
    return result;
  } catch (error) {
    const why = error instanceof Refused
      ? error.message
      : `database: ${describeDatabaseError(error)}`;
    return { ok: false, reason: `${why}; nothing imported` };
  } finally {
    await file?.close();
    await lock?.release();
  }
}

/** A pet to insert, with its id and the Idempotency-Key it was made with (if any). */
type PetInsert = { readonly id: number; readonly pet: NewPet; readonly claim?: IdempotencyClaim };

/** One statement: a column per array parameter; `categoryId` as its digits, never a number. */
async function insertPets(tx: Queryable, rows: readonly PetInsert[]): Promise<void> {
  await tx.query(
    `INSERT INTO pets (id, name, category_id, status,
                       idempotency_scope, idempotency_key, idempotency_digest)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[],
                          $5::text[], $6::text[], $7::text[])`,
    [
      rows.map((row) => String(row.id)),
      rows.map((row) => row.pet.name),
      rows.map((row) => String(row.pet.categoryId)),
      rows.map((row) => row.pet.status ?? null),
      rows.map((row) => row.claim?.scope ?? null),
      rows.map((row) => row.claim?.key ?? null),
      rows.map((row) => row.claim?.digest ?? null),
    ],
  );
}

async function copyRecords(
  tx: Queryable,
  file: DataFile,
  path: string,
  backup: boolean,
): Promise<ImportResult & { ok: true }> {
  const [{ count }] = await tx.query<{ count: string }>("SELECT count(*) AS count FROM pets");
  if (count !== "0") {
    throw new Refused(`the database already holds ${count} pets; import into an empty database`);
  }
  let keys = 0;
  const rows: PetInsert[] = [];
  const read = await readRecords(fileSource(file), {
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
  if (read.damage !== undefined) {
    throw new Refused(`${path} line ${read.damage.line} ${read.damage.reason}`);
  }
  // The current timeline's range of ids starts after the imported ones (store/postgres/failover.ts).
  await tx.query(
    "UPDATE pet_id_counter SET last_id = GREATEST(last_id, $1), range_start = GREATEST(last_id, $1)",
    [read.lastId],
  );
  const { pets, byStatus, lastId, tornTail, missingNewline, checked } = read;
  return { ok: true, file: path, pets, byStatus, keys, lastId, tornTail, missingNewline, checked };
}
