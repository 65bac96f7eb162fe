/** The JSON-lines file by default; PostgreSQL, and its driver, only with `DATABASE_URL`. */
import type { Config } from "../config/config.ts";
import { openJsonlStore } from "./jsonl/jsonl_store.ts";
import type { PetStore } from "./store.ts";

/** An open store and how many pets it held at start (undefined when counting would cost a scan). */
export interface OpenedStore {
  readonly store: PetStore;
  readonly backend: "jsonl" | "postgres";
  readonly size: number | undefined;
}

export async function openStore(
  config: Config,
  options: {
    onWarning: (message: string) => void;
    /** The store cannot go on without a restart (a data file that failed or was removed). */
    onError: (message: string) => void;
    onInfo: (message: string) => void;
    /** The store waits for something outside the process (an unreachable database). */
    onWaiting: (message: string) => void;
    lockWaitMs: number;
    signal: AbortSignal;
  },
): Promise<OpenedStore> {
  if (config.database !== undefined) {
    const { openPostgresStore } = await import("./postgres/postgres_store.ts");
    const store = await openPostgresStore({ ...options, database: config.database });
    return { store, backend: "postgres", size: undefined };
  }
  const store = await openJsonlStore({ ...options, dataDir: config.dataDir });
  return { store, backend: "jsonl", size: store.size };
}
