/**
 * The PostgreSQL access of the PostgreSQL peers (`PEER=postgres` of `hono.ts` and `fastify.ts`),
 * in this one file so that moving them to another client changes
 * nothing else. On node-postgres (`pg`), the client our store uses, written as its users write it:
 * a `pg.Pool` and `pool.query` for each statement, each statement named so that every pooled
 * connection parses and plans it once (node-postgres's prepared statements, as our store does).
 * An identity column for ids, one `INSERT … RETURNING` per create (autocommit: the answer waits
 * for the commit's WAL flush, which PostgreSQL shares between commits that arrive together),
 * `ON CONFLICT DO NOTHING` on the unique (API key, `Idempotency-Key`) index to tell a retry from a
 * first create, and one `SELECT … ORDER BY id LIMIT` per page on the primary key or a (status, id)
 * index. `DATABASE_URL` names the database; `DATABASE_POOL_SIZE` the pool (10, our service's
 * default and node-postgres's). Dev-only benchmark code.
 */
import process from "node:process";
import pg from "pg";
import type { BenchPet, Status } from "./fixture.ts";

/** What a keyed create is remembered by: the caller's API key, its key and its body's digest. */
export interface IdempotencyClaim {
  readonly scope: string;
  readonly key: string;
  readonly digest: string;
}

/** A create's outcome: a new pet, the pet a retry's key made before, or a key used for another body. */
export type CreateResult =
  | { readonly kind: "created" | "replayed"; readonly pet: BenchPet }
  | { readonly kind: "key_reused" };

/** The pets table, as the peers use it. */
export interface PetTable {
  create(pet: Omit<BenchPet, "id">, claim: IdempotencyClaim | undefined): Promise<CreateResult>;
  get(id: number): Promise<BenchPet | undefined>;
  /** The pets after `afterId` (of `status`, if given) in id order, and whether more follow. */
  page(
    query: { status: Status | undefined; afterId: number; limit: number },
  ): Promise<{ pets: BenchPet[]; hasMore: boolean }>;
  close(): Promise<void>;
}

interface PetRow {
  id: string;
  name: string;
  category_id: string;
  status: Status | null;
  request_digest?: string | null;
}

/** The row as the API's Pet, fields in the contract's order, `status` left out when null. */
function petOf(row: PetRow): BenchPet {
  const pet: BenchPet = { id: Number(row.id), name: row.name, categoryId: Number(row.category_id) };
  if (row.status !== null) pet.status = row.status;
  return pet;
}

/** Connects to `DATABASE_URL` and makes the table and its indexes when they are missing. */
export async function openPetTable(): Promise<PetTable> {
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
  });
  // An idle connection that breaks is reported here; without a listener it would end the process.
  pool.on("error", (error) => console.error(`pet table: ${error.message}`));
  await pool.query(`CREATE TABLE IF NOT EXISTS pets (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL,
    category_id bigint NOT NULL,
    status text,
    api_key text,
    idempotency_key text,
    request_digest text
  )`);
  await pool.query(
    `CREATE INDEX IF NOT EXISTS pets_status_id ON pets (status, id)`,
  );
  await pool.query(`CREATE UNIQUE INDEX IF NOT EXISTS pets_idempotency
    ON pets (api_key, idempotency_key) WHERE idempotency_key IS NOT NULL`);

  const rowsOf = async (name: string, text: string, values: unknown[]) =>
    (await pool.query<PetRow>({ name, text, values })).rows;

  return {
    async create(pet, claim) {
      const status = pet.status ?? null;
      if (claim === undefined) {
        const [row] = await rowsOf(
          "insert_pet",
          `INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3)
           RETURNING id, name, category_id, status`,
          [pet.name, pet.categoryId, status],
        );
        return { kind: "created", pet: petOf(row) };
      }
      const [row] = await rowsOf(
        "insert_keyed_pet",
        `INSERT INTO pets (name, category_id, status, api_key, idempotency_key, request_digest)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (api_key, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
         RETURNING id, name, category_id, status`,
        [
          pet.name,
          pet.categoryId,
          status,
          claim.scope,
          claim.key,
          claim.digest,
        ],
      );
      if (row !== undefined) return { kind: "created", pet: petOf(row) };
      // The key was used before (the insert waited for that transaction if it was still open).
      const [earlier] = await rowsOf(
        "select_keyed_pet",
        `SELECT id, name, category_id, status, request_digest FROM pets
         WHERE api_key = $1 AND idempotency_key = $2`,
        [claim.scope, claim.key],
      );
      return earlier.request_digest === claim.digest
        ? { kind: "replayed", pet: petOf(earlier) }
        : { kind: "key_reused" };
    },

    async get(id) {
      const [row] = await rowsOf(
        "select_pet",
        `SELECT id, name, category_id, status FROM pets WHERE id = $1`,
        [id],
      );
      return row === undefined ? undefined : petOf(row);
    },

    async page({ status, afterId, limit }) {
      const rows = status === undefined
        ? await rowsOf(
          "select_page",
          `SELECT id, name, category_id, status FROM pets
           WHERE id > $1 ORDER BY id LIMIT $2`,
          [afterId, limit + 1],
        )
        : await rowsOf(
          "select_status_page",
          `SELECT id, name, category_id, status FROM pets
           WHERE id > $1 AND status = $2 ORDER BY id LIMIT $3`,
          [afterId, status, limit + 1],
        );
      return {
        pets: rows.slice(0, limit).map(petOf),
        hasMore: rows.length > limit,
      };
    },

    async close() {
      await pool.end();
    },
  };
}
