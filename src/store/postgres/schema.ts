/**
 * The `pets` table: numbered migrations, applied at start in one transaction under an advisory
 * lock (concurrent starts apply each once, a start that dies half-way leaves nothing half-made),
 * and its rows as exact Pet JSON.
 */
import type { NewPet, PetStatus } from "../../schemas/pet.ts";
import { petJson, type StoredPet } from "../store.ts";
import type { Database } from "./database.ts";

/** The schema steps. Never edit a released one: add the next version instead. */
const MIGRATIONS = [
  {
    version: 1,
    description: "pets, the status index, idempotency keys and the id counter",
    statements: [
      // `category_id` is int8, and the driver hands int8 back as its decimal text: an int64
      // never passes through a JavaScript number on the way in or out.
      `CREATE TABLE pets (
         id bigint PRIMARY KEY CHECK (id > 0),
         name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
         category_id bigint NOT NULL,
         status text CHECK (status IN ('available', 'pending', 'sold')),
         idempotency_scope text,
         idempotency_key text,
         idempotency_digest text,
         created_at timestamptz NOT NULL DEFAULT now(),
         CHECK ((idempotency_key IS NULL) = (idempotency_scope IS NULL)
            AND (idempotency_key IS NULL) = (idempotency_digest IS NULL))
       )`,
      // Filtered pages walk this index: WHERE status = $3 AND id > $1 ORDER BY id LIMIT $2.
      `CREATE INDEX pets_status_id ON pets (status, id)`,
      // A key is kept with the pet it made (docs/api.md: keys survive restarts); one pet per key.
      `CREATE UNIQUE INDEX pets_idempotency ON pets (idempotency_scope, idempotency_key)
         WHERE idempotency_key IS NOT NULL`,
      // The id counter: one row, whose lock orders every create (see create_batches.ts).
      `CREATE TABLE pet_id_counter (
         singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
         last_id bigint NOT NULL CHECK (last_id >= 0)
       )`,
      `INSERT INTO pet_id_counter (singleton, last_id) VALUES (true, 0)`,
    ],
  },
  {
    version: 2,
    description: "the id counter's timeline and range, so a failover never reissues an id",
    statements: [
      // The range of the timeline the counter is on starts where the counter is now (failover.ts).
      `ALTER TABLE pet_id_counter ADD COLUMN timeline bigint, ADD COLUMN range_start bigint`,
      `UPDATE pet_id_counter SET range_start = last_id, timeline =
         ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint`,
      `ALTER TABLE pet_id_counter ALTER COLUMN timeline SET NOT NULL,
         ALTER COLUMN range_start SET NOT NULL`,
    ],
  },
];

/** The two-number form: apart from the one-number keys that idempotency keys hash to. */
const MIGRATION_LOCK = [0x616e696d, 1] as const; // "anim", migrations

/** Returns the versions it applied. */
export async function migrate(database: Database): Promise<number[]> {
  return await database.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1, $2)", MIGRATION_LOCK);
    await tx.query(`CREATE TABLE IF NOT EXISTS animal_store_migrations (
      version integer PRIMARY KEY,
      description text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const rows = await tx.query<{ version: number }>("SELECT version FROM animal_store_migrations");
    const applied = new Set(rows.map((row) => row.version));
    const newest = Math.max(0, ...applied);
    const known = MIGRATIONS.at(-1)?.version ?? 0;
    if (newest > known) {
      // A database migrated by a newer release: an older one must not write to it.
      throw new Error(
        `the database schema is at version ${newest}, newer than this release knows (${known}); upgrade the service`,
      );
    }
    const done: number[] = [];
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      for (const statement of migration.statements) await tx.query(statement);
      await tx.query(
        "INSERT INTO animal_store_migrations (version, description) VALUES ($1, $2)",
        [migration.version, migration.description],
      );
      done.push(migration.version);
    }
    return done;
  });
}

/** The columns a read selects. */
export type PetRow = { id: string; name: string; category_id: string; status: PetStatus | null };

export function storedPetOf(row: PetRow): StoredPet {
  const id = Number(row.id);
  return { id, json: petJson(id, petOf(row)) };
}

export function petOf(row: PetRow): NewPet {
  return { name: row.name, categoryId: BigInt(row.category_id), status: row.status ?? undefined };
}
