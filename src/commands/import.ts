/**
 * `import`: copy the JSON-lines file in DATA_DIR into the PostgreSQL database of DATABASE_URL
 * (docs/deployment.md, "Moving from the file to PostgreSQL"). Run it with the file-based service stopped.
 */
import process from "node:process";
import { commandConfig } from "./command_config.ts";

/** 0 when every pet was copied; 1 when nothing was (damage, a non-empty database, …); 2 for usage. */
export async function runImport(): Promise<number> {
  const config = commandConfig("import");
  if (config === undefined) return 2;
  if (config.database === undefined) {
    process.stderr.write("Cannot import: DATABASE_URL must name the database to import into\n");
    return 2;
  }
  const { importJsonlFile } = await import("../store/postgres/import_jsonl.ts");
  const result = await importJsonlFile({
    dataDir: config.dataDir,
    database: config.database,
    onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
  });
  if (!result.ok) {
    process.stderr.write(`Cannot import: ${result.reason}\n`);
    return 1;
  }
  process.stdout.write(
    `Imported ${result.pets} pets (highest id ${result.lastId}) and ${result.keys} idempotency keys from ${result.file}\n`,
  );
  return 0;
}
