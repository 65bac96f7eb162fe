/** The PetStore contract against the PostgreSQL store, each test on a database of its own. */
import { openPostgresStore } from "../../src/store/postgres/postgres_store.ts";
import { loadConfig } from "../../src/config/config.ts";
import { freshDatabase, skipWithoutPostgres } from "../support/postgres.ts";
import { storeContract } from "./store_contract.ts";

storeContract({
  name: "PostgreSQL",
  skip: skipWithoutPostgres,
  async fresh() {
    const database = await freshDatabase();
    const config = loadConfig({ API_KEYS: "k", DATABASE_URL: database.url }).database!;
    return {
      open: () => openPostgresStore({ database: config }),
      remove: () => database.drop(),
    };
  },
});
