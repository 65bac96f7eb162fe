/** Rows of the `pets` table: reading them as exact Pet JSON, and inserting them. */
import type { NewPet, PetStatus } from "../../schemas/pet.ts";
import { petJson } from "../pet_json.ts";
import type { IdempotencyClaim, StoredPet } from "../store.ts";
import type { Transaction } from "./connect.ts";

/** The columns a read selects. int8 columns arrive as decimal text (the driver's default). */
export interface PetRow {
  readonly id: string;
  readonly name: string;
  readonly category_id: string;
  readonly status: PetStatus | null;
}

/** The pet as the HTTP core serves it. */
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

/**
 * Inserts pets with one statement: each column goes as one array parameter, and `unnest` turns
 * the arrays back into rows. `categoryId` travels as its decimal digits, never as a number.
 */
export async function insertPets(tx: Transaction, rows: readonly PetInsert[]): Promise<void> {
  await tx`
    INSERT INTO pets (id, name, category_id, status,
                      idempotency_scope, idempotency_key, idempotency_digest)
    SELECT * FROM unnest(
      ${rows.map((row) => String(row.id))}::bigint[],
      ${rows.map((row) => row.pet.name)}::text[],
      ${rows.map((row) => String(row.pet.categoryId))}::bigint[],
      ${rows.map((row) => row.pet.status ?? null)}::text[],
      ${rows.map((row) => row.claim?.scope ?? null)}::text[],
      ${rows.map((row) => row.claim?.key ?? null)}::text[],
      ${rows.map((row) => row.claim?.digest ?? null)}::text[])`;
}
