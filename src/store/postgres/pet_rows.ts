/** Rows of the `pets` table and the exact Pet JSON made from them. */
import type { PetStatus } from "../../schemas/pet.ts";
import { petJson } from "../pet_json.ts";
import type { StoredPet } from "../store.ts";

/** The columns a read selects. int8 columns arrive as decimal text (the driver's default). */
export interface PetRow {
  readonly id: string;
  readonly name: string;
  readonly category_id: string;
  readonly status: PetStatus | null;
}

/** The pet as the HTTP core serves it; `categoryId` goes from the row's digits to a bigint. */
export function storedPetOf(row: PetRow): StoredPet {
  const id = Number(row.id);
  const status = row.status ?? undefined;
  return {
    id,
    status,
    json: petJson(id, { name: row.name, categoryId: BigInt(row.category_id), status }),
  };
}
