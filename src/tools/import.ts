/**
 * `import [PATH]`: copies the data file of DATA_DIR (its service stopped), or the backup at PATH,
 * into the empty PostgreSQL database of DATABASE_URL (postgres_copy.ts).
 */
import type { DatabaseConfig } from "../config/config.ts";
import type { ImportResult } from "./postgres_copy.ts";

/** Imports into `database`; `onWarning` hears what was left out or repaired on the way. */
export async function importCatalogue(options: {
  dataDir: string;
  database: DatabaseConfig;
  path: string | undefined;
  onWarning: (message: string) => void;
}): Promise<ImportResult> {
  const { dataDir, database, path, onWarning } = options;
  // Loaded only here: the PostgreSQL client is no part of a file-store service.
  const { importJsonlFile } = await import("./postgres_copy.ts");
  return await importJsonlFile({ dataDir, backup: path, database, onWarning });
}
