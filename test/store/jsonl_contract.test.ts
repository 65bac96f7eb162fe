/** The PetStore contract against the JSON-lines file store. */
import { join } from "node:path";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import { removeTempDirs, tempDir } from "./helpers.ts";
import { storeContract } from "./store_contract.ts";

storeContract({
  name: "JSON-lines file",
  fresh() {
    const dataDir = join(tempDir(), "data");
    return Promise.resolve({
      open: () => openJsonlStore({ dataDir }),
      remove: () => Promise.resolve(removeTempDirs()),
    });
  },
});
