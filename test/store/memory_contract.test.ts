/** The PetStore contract against the in-memory store the handler tests use. */
import { MemoryStore } from "../support/memory_store.ts";
import { storeContract } from "./store_contract.ts";

storeContract({
  name: "in-memory (tests)",
  fresh() {
    // The pets of a location outlive a close, as on disk: a reopen is a new instance over them.
    let store: MemoryStore | undefined;
    return Promise.resolve({
      open: () => Promise.resolve(store = store?.reopen() ?? new MemoryStore()),
      remove: () => Promise.resolve(),
    });
  },
});
