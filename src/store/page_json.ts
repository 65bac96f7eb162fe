/** A list page as JSON bytes, for a store that holds pets as text (PostgreSQL, the test store). */
import type { PetPageJson, StoredPet } from "./store.ts";

const encoder = new TextEncoder();

/** The page `[pet,pet,…]` from the pets' JSON texts, with the facts its ETag is made of. */
export function joinPageJson(pets: readonly StoredPet[], hasMore: boolean): PetPageJson {
  const count = pets.length;
  let text = "[";
  for (let i = 0; i < count; i++) text += (i === 0 ? "" : ",") + pets[i].json;
  text += "]";
  return {
    body: encoder.encode(text),
    firstId: count === 0 ? 0 : pets[0].id,
    lastId: count === 0 ? 0 : pets[count - 1].id,
    count,
    hasMore,
  };
}
