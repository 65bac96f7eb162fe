/**
 * `backup` with DATABASE_URL: writes the database's pets in the data file's own record format
 * (record.ts), in id order, with their idempotency keys, so the result is a data file that
 * `verify`, `restore` and `import` take as they take a file backup.
 *
 * One REPEATABLE READ, READ ONLY transaction gives one snapshot: every pet committed (and so
 * answered 201) before it began is in it, and nothing half-made. Rows are read in pages by id
 * (keyset), so memory stays bounded however many pets there are; a read-only snapshot does not
 * block the service's writers.
 */
import type { DatabaseConfig } from "../../config/config.ts";
import { petRecordBytes } from "../jsonl/record.ts";
import type { ByteSink } from "../jsonl/record_copy.ts";
import type { StatusCounts } from "../store.ts";
import { connectPool } from "./connect.ts";
import { describeDatabaseError } from "./database_errors.ts";

/** What an export wrote, or why it stopped (one line). */
export type ExportResult =
  | {
    readonly ok: true;
    readonly pets: number;
    readonly byStatus: StatusCounts;
    readonly lastId: number;
  }
  | { readonly ok: false; readonly reason: string };

/** Rows per page: large enough to be fast, small enough to keep memory flat. */
const ROWS_PER_PAGE = 5000;

interface ExportRow {
  readonly id: string;
  readonly name: string;
  readonly category_id: string;
  readonly status: "available" | "pending" | "sold" | null;
  readonly idempotency_scope: string | null;
  readonly idempotency_key: string | null;
  readonly idempotency_digest: string | null;
}

/** Streams every pet of the database to `sink` as record lines. */
export async function exportDatabase(options: {
  database: DatabaseConfig;
  sink: ByteSink;
}): Promise<ExportResult> {
  const { database, sink } = options;
  const sql = connectPool({ ...database, poolSize: 1 }, "animal-store backup");
  try {
    return await sql.begin("isolation level repeatable read read only", async (tx) => {
      const byStatus: StatusCounts = { available: 0, pending: 0, sold: 0, none: 0 };
      let pets = 0;
      let lastId = "0";
      for (;;) {
        const rows = await tx<ExportRow[]>`
          SELECT id, name, category_id, status,
                 idempotency_scope, idempotency_key, idempotency_digest
          FROM pets WHERE id > ${lastId}::bigint ORDER BY id LIMIT ${ROWS_PER_PAGE}`;
        if (rows.length === 0) break;
        const lines: Uint8Array[] = [];
        for (const row of rows) {
          const status = row.status ?? undefined;
          const pet = { name: row.name, categoryId: BigInt(row.category_id), status };
          const claim = row.idempotency_key === null ? undefined : {
            scope: row.idempotency_scope ?? "",
            key: row.idempotency_key,
            digest: row.idempotency_digest ?? "",
          };
          lines.push(petRecordBytes(Number(row.id), pet, claim));
          byStatus[status ?? "none"]++;
        }
        await sink(joinBytes(lines));
        pets += rows.length;
        lastId = rows[rows.length - 1].id;
      }
      return { ok: true as const, pets, byStatus, lastId: Number(lastId) };
    });
  } catch (error) {
    return { ok: false, reason: `database: ${describeDatabaseError(error)}` };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The lines of one page as one chunk, so the sink sees one write per page. */
function joinBytes(lines: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const line of lines) size += line.length;
  const joined = new Uint8Array(size);
  let at = 0;
  for (const line of lines) {
    joined.set(line, at);
    at += line.length;
  }
  return joined;
}
