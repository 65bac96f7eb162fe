/**
 * Times `backup` and `restore` on a large data file: writes N pets (default 1,000,000) as the
 * store would (bench/data_file.ts), starts the service on that directory (the backup runs beside
 * it, as in production), then runs `backup PATH` and `restore PATH` as processes on the chosen
 * runtime and prints seconds and MB/s for each, as one JSON line.
 *
 *   node_modules/.bin/deno run -A scripts/bench/measure_backup.ts [--pets N] [--runtime deno|bun|node|executable]
 *
 * `node` needs `npm run build` first, `executable` `npm run compile`. The times include the
 * runtime's start (a fixed few hundred ms): compare runs of one size.
 */
import { statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { writePetFile } from "./data_file.ts";
import {
  runService,
  type RuntimeName,
  startService,
  temporaryDirectory,
} from "../../test/support/server_process.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    pets: { type: "string", default: "1000000" },
    runtime: { type: "string", default: "deno" },
  },
});
const pets = Number(values.pets);
const runtime = values.runtime as RuntimeName;
if (!Number.isSafeInteger(pets) || pets < 1) throw new Error("--pets must be a positive integer");

const dir = temporaryDirectory("animal-store-measure-backup-");
try {
  const dataDir = join(dir.path, "data");
  await mkdir(dataDir, { recursive: true });
  const bytes = writePetFile(dataDir, pets);
  const service = await startService({ dataDir, runtime, env: { API_KEYS: "measure-key" } });
  const backupPath = join(dir.path, "backup.jsonl");
  let backupSeconds: number;
  try {
    backupSeconds = await timed(["backup", backupPath], { DATA_DIR: dataDir });
  } finally {
    await service.stop();
  }
  if (statSync(backupPath).size !== bytes) throw new Error("the backup's size differs");
  const restoreSeconds = await timed(["restore", backupPath], {
    DATA_DIR: join(dir.path, "restored"),
  });
  const megabytes = bytes / 1e6;
  console.log(JSON.stringify({
    runtime,
    pets,
    megabytes: round(megabytes),
    backup: { seconds: round(backupSeconds), megabytesPerSecond: round(megabytes / backupSeconds) },
    restore: {
      seconds: round(restoreSeconds),
      megabytesPerSecond: round(megabytes / restoreSeconds),
    },
  }));
} finally {
  dir.remove();
}

async function timed(args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const result = await runService(args, { runtime, env, timeoutMs: 600_000 });
  if (result.code !== 0) throw new Error(`${args[0]} failed: ${result.stderr}`);
  return (performance.now() - started) / 1000;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
