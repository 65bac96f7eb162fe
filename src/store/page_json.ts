/** A list page as the JSON bytes clients receive, from whichever store holds the pets. */
import type { PageQuery, PetPageJson, PetStore } from "./store.ts";

const encoder = new TextEncoder();

/**
 * A page as JSON bytes: from the store's own `listJson` when it has one (the JSON-lines store
 * copies the bytes it holds), otherwise by joining the texts of `list`.
 */
export async function pageJson(store: PetStore, query: PageQuery): Promise<PetPageJson> {
  if (store.listJson !== undefined) return await store.listJson(query);
  const page = await store.list(query);
  const count = page.pets.length;
  let text = "[";
  for (let i = 0; i < count; i++) text += (i === 0 ? "" : ",") + page.pets[i].json;
  text += "]";
  return {
    body: encoder.encode(text),
    firstId: count === 0 ? 0 : page.pets[0].id,
    lastId: count === 0 ? 0 : page.pets[count - 1].id,
    count,
    hasMore: page.hasMore,
  };
}
