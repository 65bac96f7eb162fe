/**
 * `restore PATH`: verifies a backup (`-` reads stdin) and installs it as the data file of an
 * empty DATA_DIR (store/jsonl/restore.ts). Run it before starting the service there.
 */
import { join } from "node:path";
import process from "node:process";
import { loadConfig } from "../config/config.ts";
import { DATA_FILE } from "../store/jsonl/jsonl_store.ts";
import { restoreDataFile } from "../store/jsonl/restore.ts";
import { noCheckLineWarning } from "../store/jsonl/verify.ts";
import { readBackupAt } from "./backup_path.ts";
import { fail, printReport } from "./output.ts";

/** 0 when the backup is installed; 1 when it is damaged or the directory is not empty; 2 usage. */
export async function runRestore([path]: readonly string[] = []): Promise<number> {
  if (!path) return fail("Cannot restore: give the backup file to read, or - for stdin", 2);
  const { dataDir } = loadConfig(process.env);
  const read = await readBackupAt(path, async (source, name) => {
    const result = await restoreDataFile({ dataDir, source, name });
    if (!result.ok) return fail(`Cannot restore: ${result.reason}`);
    const warn = (message: string) => process.stderr.write(`warning: ${message}\n`);
    if (result.tornTail !== undefined) {
      warn(
        `left out the torn last line of ${name} (${result.tornTail.length} bytes without a newline)`,
      );
    }
    if (result.missingNewline !== undefined) {
      warn(`added the missing newline after the last record of ${name}`);
    }
    if (!result.checked) warn(noCheckLineWarning(name));
    const { pets, byStatus } = result;
    printReport({ file: join(dataDir, DATA_FILE), pets, byStatus, damagedLines: 0 });
    return 0;
  });
  return read.ok ? read.value : fail(`Cannot restore: ${read.reason}`);
}
