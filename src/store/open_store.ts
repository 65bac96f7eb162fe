/** The JSON-lines file by default; PostgreSQL, and its driver, only with `DATABASE_URL`. */
import type { Config } from "../config/config.ts";
import { type JsonlStoreOptions, openJsonlStore } from "./jsonl/jsonl_store.ts";
import type { PostgresStoreOptions } from "./postgres/postgres_store.ts";
import type { PetStore } from "./store.ts";

/** An open store and how many pets it held at start (undefined when counting would cost a scan). */
export interface OpenedStore {
  readonly store: PetStore;
  readonly backend: "jsonl" | "postgres";
  readonly size: number | undefined;
}

export async function openStore(
  config: Config,
  options: Omit<JsonlStoreOptions & PostgresStoreOptions, "dataDir" | "database">,
): Promise<OpenedStore> {
  if (config.database !== undefined) {
    const { openPostgresStore } = await import("./postgres/postgres_store.ts");
    const store = await openPostgresStore({ ...options, database: config.database });
    return { store, backend: "postgres", size: undefined };
  }
  const store = await openJsonlStore({ ...options, dataDir: config.dataDir });
  return { store, backend: "jsonl", size: store.size };
}
