/** Rows of the `pets` table: reading them as exact Pet JSON, and inserting them. */
import type { NewPet, PetStatus } from "../../schemas/pet.ts";
import { petJson } from "../pet_json.ts";
import type { IdempotencyClaim, StoredPet } from "../store.ts";
import type { Queryable } from "./database.ts";

/** The columns a read selects. int8 columns arrive as decimal text (node-postgres's default). */
export interface PetRow {
  readonly id: string;
  readonly name: string;
  readonly category_id: string;
  readonly status: PetStatus | null;
}

export function storedPetOf(row: PetRow): StoredPet {
  const id = Number(row.id);
  return { id, json: petJson(id, petOf(row)) };
}

/** The row's NewPet; `categoryId` goes from the row's digits to a bigint. */
export function petOf(row: PetRow): NewPet {
  const status = row.status ?? undefined;
  return { name: row.name, categoryId: BigInt(row.category_id), status };
}

/** A pet to insert, with its id and the Idempotency-Key it was made with (if any). */
export interface PetInsert {
  readonly id: number;
  readonly pet: NewPet;
  readonly claim: IdempotencyClaim | undefined;
}

/** One statement: a column per array parameter; `categoryId` as its digits, never a number. */
export async function insertPets(tx: Queryable, rows: readonly PetInsert[]): Promise<void> {
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
