/**
 * The PostgreSQL peers' table on node-postgres, as its users write it: a `pg.Pool` of 10 (ours
 * and node-postgres's default), `pool.query` with named statements (planned once per connection,
 * as our store does), an identity column, one `INSERT … RETURNING` per create (autocommit), one
 * `SELECT … ORDER BY id LIMIT` per page on the primary key or a (status, id) index.
 */
import process from "node:process";
import pg from "pg";
import type { BenchPet, ListQuery, Status } from "./fixture.ts";

/** The pets table, as the peers use it. */
export interface PetTable {
  create(pet: Omit<BenchPet, "id">): Promise<BenchPet>;
  get(id: number): Promise<BenchPet | undefined>;
  /** The pets after `afterId` (of `status`, if given) in id order, and whether more follow. */
  page(query: ListQuery): Promise<{ pets: BenchPet[]; hasMore: boolean }>;
  close(): Promise<void>;
}

interface PetRow {
  id: string;
  name: string;
  category_id: string;
  status: Status | null;
}

/** The row as the API's Pet, fields in the contract's order, `status` left out when null. */
function petOf(row: PetRow): BenchPet {
  const pet: BenchPet = { id: Number(row.id), name: row.name, categoryId: Number(row.category_id) };
  if (row.status !== null) pet.status = row.status;
  return pet;
}

/** Connects to `DATABASE_URL` and makes the table and its index when they are missing. */
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
    status text
  )`);
  await pool.query(`CREATE INDEX IF NOT EXISTS pets_status_id ON pets (status, id)`);
  const rowsOf = async (name: string, text: string, values: unknown[]) =>
    (await pool.query<PetRow>({ name, text, values })).rows;
  const COLUMNS = "id, name, category_id, status";

  return {
    async create(pet) {
      const [row] = await rowsOf(
        "insert_pet",
        `INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
        [pet.name, pet.categoryId, pet.status ?? null],
      );
      return petOf(row);
    },
    async get(id) {
      const [row] = await rowsOf("select_pet", `SELECT ${COLUMNS} FROM pets WHERE id = $1`, [id]);
      return row === undefined ? undefined : petOf(row);
    },
    async page({ status, afterId, limit }) {
      const rows = status === undefined
        ? await rowsOf(
          "select_page",
          `SELECT ${COLUMNS} FROM pets WHERE id > $1 ORDER BY id LIMIT $2`,
          [afterId, limit + 1],
        )
        : await rowsOf(
          "select_status_page",
          `SELECT ${COLUMNS} FROM pets WHERE id > $1 AND status = $2 ORDER BY id LIMIT $3`,
          [afterId, status, limit + 1],
        );
      return { pets: rows.slice(0, limit).map(petOf), hasMore: rows.length > limit };
    },
    close: () => pool.end(),
  };
}
