/**
 * The stores the process suites run against: the JSON-lines file (always) and PostgreSQL when a
 * test cluster is there (test/support/postgres.ts). Each `settings()` call makes a fresh one.
 */
import { freshDatabase, skipWithoutPostgres } from "./postgres.ts";

/** A store a suite runs against: the settings that select it, made fresh for the suite. */
export interface Backend {
  readonly name: string;
  readonly skip: string | false;
  settings(): Promise<{ env: Record<string, string>; remove: () => Promise<void> }>;
}

/** The JSON-lines file in the data directory: no settings. */
export const jsonlBackend: Backend = {
  name: "JSON-lines store",
  skip: false,
  settings: () => Promise.resolve({ env: {}, remove: () => Promise.resolve() }),
};

/** A fresh database of the test cluster, dropped at the end. */
export const postgresBackend: Backend = {
  name: "PostgreSQL store",
  skip: skipWithoutPostgres,
  async settings() {
    const database = await freshDatabase();
    return { env: { DATABASE_URL: database.url }, remove: database.drop };
  },
};

export const backends: readonly Backend[] = [jsonlBackend, postgresBackend];
