/**
 * `backup` with DATABASE_URL: the pets as a file backup, from one REPEATABLE READ, READ ONLY
 * snapshot (every pet answered 201 before it began, nothing half-made, no writer blocked), read
 * in keyset pages so memory stays flat.
 */
import type { DatabaseConfig } from "../../config/config.ts";
import { CheckedBackup } from "../catalogue/backup_check.ts";
import { encodePetRecord, maxRecordBytes, petRecord } from "../catalogue/line_format.ts";
import type { ByteSink } from "../catalogue/read_records.ts";
import type { ToolResult } from "../catalogue/report.ts";
import { emptyStatusCounts } from "../store.ts";
import { connectDatabase, describeDatabaseError } from "./connect.ts";
import type { Database } from "./database.ts";
import { findPrimaryOnce } from "./primary_finder.ts";
import { petOf, type PetRow } from "./pet_rows.ts";

/** Rows per page: large enough to be fast, small enough to keep memory flat. */
const ROWS_PER_PAGE = 5000;

interface ExportRow extends PetRow {
  readonly idempotency_scope: string | null;
  readonly idempotency_key: string | null;
  readonly idempotency_digest: string | null;
}

export async function exportDatabase(options: {
  database: DatabaseConfig;
  sink: ByteSink;
}): Promise<ToolResult> {
  const { database, sink } = options;
  let db: Database | undefined;
  try {
    // No deadline on the whole backup: it takes as long as the catalogue is big.
    const settled = { ...await findPrimaryOnce(database), poolSize: 1 };
    db = connectDatabase(settled, "animal-store backup", { deadline: false });
    return await db.transaction(async (tx) => {
      const backup = new CheckedBackup(sink);
      await backup.begin();
      const byStatus = emptyStatusCounts();
      let pets = 0;
      let lastId = "0";
      for (;;) {
        const rows = await tx.query<ExportRow>(
          `SELECT id, name, category_id, status,
                  idempotency_scope, idempotency_key, idempotency_digest
           FROM pets WHERE id > $1::bigint ORDER BY id LIMIT $2`,
          [lastId, ROWS_PER_PAGE],
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
        let end = 0;
        for (const record of records) end = encodePetRecord(record, page, end).end;
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
