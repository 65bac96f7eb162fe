/**
 * `import [PATH]`: copy the JSON-lines file in DATA_DIR (with the file's service stopped), or the
 * backup at PATH, into the PostgreSQL database of DATABASE_URL (docs/deployment.md, "Moving from
 * the file to PostgreSQL").
 */
import process from "node:process";
import { loadConfig } from "../config/config.ts";
import { fail } from "./output.ts";

/** 0 when every pet was copied; 1 when nothing was (damage, a non-empty database, …); 2 for usage. */
export async function runImport([path]: readonly string[] = []): Promise<number> {
  const { dataDir, database } = loadConfig(process.env);
  if (database === undefined) {
    return fail("Cannot import: DATABASE_URL must name the database to import into", 2);
  }
  const { importJsonlFile } = await import("../store/postgres/import_jsonl.ts");
  const onWarning = (message: string) => process.stderr.write(`warning: ${message}\n`);
  const result = await importJsonlFile({ dataDir, backup: path, database, onWarning });
  if (!result.ok) return fail(`Cannot import: ${result.reason}`);
  process.stdout.write(
    `Imported ${result.pets} pets (highest id ${result.lastId}) and ${result.keys} idempotency keys from ${result.file}\n`,
  );
  return 0;
}
