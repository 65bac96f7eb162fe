/**
 * `import`: moves a catalogue from the JSON-lines file (`DATA_DIR/pets.jsonl`) into an empty
 * PostgreSQL database, keeping every id, every exact value and every idempotency key, so clients
 * see the same pets at the same URLs and their retries still replay.
 *
 * Safety rules, in the order they apply:
 *   1. The data directory's lock is taken: a service still writing the file refuses the import.
 *   2. `verify`'s full check runs first; any damaged line stops the import before the database
 *      is touched. A torn last line (never acknowledged to a client) is left out, with a warning.
 *      The copy then reads the same file again with the same check (records.ts), up to the end
 *      of the lines verify read.
 *   3. Everything goes in one transaction, into a database with no pets; the id counter is set to
 *      the highest id, so ids the file handed out are never handed out again.
 */
import type { DatabaseConfig } from "../../config/config.ts";
import { type DataFile, nodeFileLayer } from "../jsonl/file_layer.ts";
import { acquireLock } from "../jsonl/lock.ts";
import { fileSource, readRecords } from "../jsonl/records.ts";
import { verifyDataFile } from "../jsonl/verify.ts";
import {
  connectDatabase,
  type Database,
  describeDatabaseError,
  type Queryable,
  settleSslMode,
} from "./connect.ts";
import { insertPets, type PetInsert } from "./pet_rows.ts";
import { migrate } from "./schema.ts";

/** How an import ended; `ok: false` carries a one-line reason. */
export type ImportResult =
  | {
    readonly ok: true;
    /** The data file that was read. */
    readonly file: string;
    readonly pets: number;
    readonly keys: number;
    readonly lastId: number;
  }
  | { readonly ok: false; readonly reason: string };

/** Rows per INSERT: large enough to be fast, small enough for one statement's parameters. */
const ROWS_PER_INSERT = 5000;

/** Imports `dataDir`'s file into the database; `onWarning` hears about a torn last line. */
export async function importJsonlFile(options: {
  dataDir: string;
  database: DatabaseConfig;
  onWarning: (message: string) => void;
}): Promise<ImportResult> {
  const { dataDir, database, onWarning } = options;
  const lock = await acquireLock(dataDir);
  if ("refused" in lock) return { ok: false, reason: lock.refused };
  try {
    const report = await verifyDataFile(dataDir);
    const { damage } = report;
    if (damage !== undefined) {
      return {
        ok: false,
        reason: `${report.file} line ${damage.line} ${damage.reason}; nothing imported`,
      };
    }
    if (report.tornTail !== undefined) {
      onWarning(
        `Leaving out the torn last line of ${report.file} (byte offset ${report.tornTail.offset}): it was never acknowledged`,
      );
    }
    // Only the complete lines verify read: a torn last fragment is left out.
    const length = report.tornTail?.offset ?? Infinity;
    const file = await nodeFileLayer.open(report.file, "r");
    // No deadline on the whole import: it takes as long as the file is big (the server's
    // statement timeout still bounds each statement).
    let db: Database | undefined;
    try {
      db = connectDatabase(await settleSslMode(database), "animal-store import", {
        deadline: false,
      });
      await migrate(db);
      return await db.transaction((tx) => copyRecords(tx, file, report.file, length));
    } catch (error) {
      return { ok: false, reason: `database: ${describeDatabaseError(error)}; nothing imported` };
    } finally {
      await db?.end();
      await file.close();
    }
  } finally {
    await lock.release();
  }
}

async function copyRecords(
  tx: Queryable,
  file: DataFile,
  path: string,
  length: number,
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
    strict: true,
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
  await tx.query("UPDATE pet_id_counter SET last_id = GREATEST(last_id, $1)", [read.lastId]);
  return { ok: true, file: path, pets: read.pets, keys, lastId: read.lastId };
}
