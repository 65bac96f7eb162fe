/** `verify` of DATA_DIR: the start's judgement of every line, without the lock, changing nothing. */
import { join } from "node:path";
import { fileSource } from "../catalogue/read_records.ts";
import { type RecordReport, verifySource } from "../catalogue/report.ts";
import { emptyStatusCounts } from "../store.ts";
import { openIfExists } from "./file_layer.ts";
import { DATA_FILE } from "./jsonl_store.ts";

/** Checks `DATA_DIR/pets.jsonl` line by line; changes nothing. A missing file has no pets. */
export async function verifyDataFile(dataDir: string): Promise<RecordReport> {
  const path = join(dataDir, DATA_FILE);
  const file = await openIfExists(path, "r");
  if (file === undefined) {
    return {
      file: path,
      kind: "data file",
      pets: 0,
      byStatus: emptyStatusCounts(),
      damagedLines: 0,
    };
  }
  try {
    return await verifySource(fileSource(file), { name: path, kind: "data file" });
  } finally {
    await file.close();
  }
}
