/**
 * Store benchmark: prints figures, asserts nothing.
 *
 *   node_modules/.bin/bun scripts/bench/store.ts
 *   node_modules/.bin/deno run -A scripts/bench/store.ts
 *   node_modules/.bin/esbuild scripts/bench/store.ts --bundle --platform=node --format=esm \
 *     --outfile=/tmp/bench_store.mjs && node /tmp/bench_store.mjs
 *
 * Options: --seconds=N (per create run, default 2), --replay-pets=N (default 1000000; 10000000
 * for the large run), --skip-creates, --skip-replay.
 *
 * Creates: durable creates per second at concurrency 1, 16 and 64 for the group-commit store, a
 * naive append with one fdatasync per create, the store with fsync off (unsafe, the ceiling; see
 * `no_sync_file_layer.ts`) and, on Bun, bun:sqlite (WAL, synchronous=FULL, one transaction per insert). Replay: generates a
 * file of N pets and opens it in a fresh child process, which reports open time, RSS and the
 * time of a deep `list`, so the figures are not polluted by this process.
 */
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { NewPet, PetStatus } from "../../src/schemas/pet.ts";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import { petRecordBytes } from "../../src/store/jsonl/format.ts";
import { noSyncFileLayer } from "./no_sync_file_layer.ts";
import { petJson } from "../../src/store/pet_json.ts";

declare const Bun: unknown;
declare const Deno: unknown;

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value = "true"] = arg.replace(/^--/, "").split("=");
    return [key, value] as [string, string];
  }),
);
const runtime = typeof Bun !== "undefined" ? "bun" : typeof Deno !== "undefined" ? "deno" : "node";
const STATUSES: (PetStatus | undefined)[] = ["available", "pending", "sold", undefined];

/** Creates per second of one implementation at one concurrency. */
type CreateFn = (pet: NewPet) => Promise<unknown> | unknown;
interface Contender {
  readonly name: string;
  start(dir: string): Promise<{ create: CreateFn; close(): Promise<void> }>;
}

const contenders: Contender[] = [
  {
    name: "group commit (fsync on)",
    async start(dir) {
      const store = await openJsonlStore({ dataDir: dir });
      return { create: (pet) => store.create(pet), close: () => store.close() };
    },
  },
  {
    name: "naive append, 1 fdatasync/create",
    async start(dir) {
      const file = await open(join(dir, "pets.jsonl"), "a");
      let nextId = 1;
      let chain: Promise<unknown> = Promise.resolve();
      const create = (pet: NewPet) => {
        chain = chain.then(async () => {
          const bytes = petRecordBytes(nextId++, pet);
          await file.write(bytes, 0, bytes.length);
          await file.datasync();
        });
        return chain;
      };
      return { create, close: () => file.close() };
    },
  },
  {
    name: "group commit, fsync OFF (unsafe)",
    async start(dir) {
      const store = await openJsonlStore({ dataDir: dir, files: noSyncFileLayer() });
      return { create: (pet) => store.create(pet), close: () => store.close() };
    },
  },
];

if (runtime === "bun") {
  contenders.push({
    name: "bun:sqlite WAL synchronous=FULL",
    async start(dir) {
      const specifier = "bun:sqlite";
      // deno-lint-ignore no-explicit-any
      const { Database } = (await import(specifier)) as any;
      const db = new Database(join(dir, "pets.db"));
      db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
      db.exec("CREATE TABLE pets (id INTEGER PRIMARY KEY, status TEXT, json TEXT NOT NULL)");
      const insert = db.prepare("INSERT INTO pets (status, json) VALUES (?, ?)");
      let nextId = 1;
      const create = (pet: NewPet) => insert.run(pet.status ?? null, petJson(nextId++, pet));
      return { create, close: () => Promise.resolve(db.close()) };
    },
  });
}

async function measureCreates(
  contender: Contender,
  concurrency: number,
  seconds: number,
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "bench-store-"));
  try {
    const target = await contender.start(dir);
    const deadline = performance.now() + seconds * 1000;
    let done = 0;
    const worker = async () => {
      while (performance.now() < deadline) {
        await target.create({
          name: `Pet ${done}`,
          categoryId: 9007199254740993n,
          status: "available",
        });
        done++;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const elapsed = (performance.now() - started) / 1000;
    await target.close();
    return done / elapsed;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchCreates(seconds: number): Promise<void> {
  console.log(`\n== durable creates per second (${runtime}, ${seconds} s per cell) ==`);
  const levels = [1, 16, 64];
  console.log(["implementation".padEnd(36), ...levels.map((c) => `c=${c}`.padStart(10))].join(""));
  const results = new Map<string, number[]>();
  for (const contender of contenders) {
    const row: number[] = [];
    for (const concurrency of levels) {
      row.push(await measureCreates(contender, concurrency, seconds));
    }
    results.set(contender.name, row);
    console.log(
      [contender.name.padEnd(36), ...row.map((r) => Math.round(r).toString().padStart(10))].join(
        "",
      ),
    );
  }
  const group = results.get(contenders[0].name)![2];
  const unsafe = results.get(contenders[2].name)![2];
  console.log(`group commit / fsync off at c=64: ${(group / unsafe).toFixed(2)} (target >= 0.8)`);
  const sqlite = results.get("bun:sqlite WAL synchronous=FULL");
  if (sqlite) {
    console.log(
      `group commit / bun:sqlite at c=64: ${(group / sqlite[2]).toFixed(1)}x (target >= 5x)`,
    );
  }
}

/** Writes a data file of `count` pets, as the store would have written it. */
async function generateFile(dir: string, count: number): Promise<number> {
  const file = await open(join(dir, "pets.jsonl"), "w");
  let bytes = 0;
  let lines: Uint8Array[] = [];
  for (let id = 1; id <= count; id++) {
    const status = STATUSES[id % 4];
    const pet: NewPet = status === undefined
      ? { name: `Pet ${id}`, categoryId: BigInt(id * 7919) }
      : { name: `Pet ${id}`, categoryId: BigInt(id * 7919), status };
    lines.push(petRecordBytes(id, pet));
    if (lines.length === 50_000 || id === count) {
      const chunk = Buffer.concat(lines);
      await file.write(chunk, 0, chunk.length);
      bytes += chunk.length;
      lines = [];
    }
  }
  await file.close();
  return bytes;
}

function childCommand(): string[] {
  const script = fileURLToPath(import.meta.url);
  if (runtime === "deno") return [process.execPath, "run", "-A", script];
  return [process.execPath, script];
}

async function benchReplay(count: number): Promise<void> {
  console.log(`\n== replay of ${count} pets (${runtime}) ==`);
  const dir = mkdtempSync(join(tmpdir(), "bench-replay-"));
  try {
    const started = performance.now();
    const bytes = await generateFile(dir, count);
    console.log(
      `generated ${(bytes / 1e6).toFixed(0)} MB in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s`,
    );
    for (let run = 1; run <= 3; run++) {
      const [command, ...rest] = childCommand();
      const child = spawnSync(command, [...rest, `--child-open=${dir}`], {
        encoding: "utf8",
        cwd: process.cwd(),
      });
      if (child.status !== 0) throw new Error(`child failed: ${child.stderr}`);
      const figures = JSON.parse(child.stdout.trim().split("\n").pop()!);
      console.log(
        `run ${run}: open ${figures.openMs.toFixed(0)} ms, RSS ${figures.rssMb.toFixed(0)} MB ` +
          `(before open ${figures.baseRssMb.toFixed(0)} MB), pets ${figures.size}, ` +
          `list(sold, afterId=${figures.afterId}, limit=100) ${figures.listMicros.toFixed(1)} µs`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** In the child: open the store, measure, print one JSON line. */
async function childOpen(dir: string): Promise<void> {
  const baseRssMb = process.memoryUsage().rss / 1e6;
  const started = performance.now();
  const store = await openJsonlStore({ dataDir: dir });
  const openMs = performance.now() - started;
  const rssMb = process.memoryUsage().rss / 1e6;
  const afterId = Math.floor(store.size * 0.9);
  const rounds = 2000;
  const listStarted = performance.now();
  for (let i = 0; i < rounds; i++) {
    store.listJson({ status: "sold", afterId: afterId + (i % 100), limit: 100 });
  }
  const listMicros = ((performance.now() - listStarted) * 1000) / rounds;
  await store.close();
  console.log(JSON.stringify({ openMs, rssMb, baseRssMb, size: store.size, afterId, listMicros }));
}

if (args.has("child-open")) {
  await childOpen(args.get("child-open")!);
} else {
  if (!args.has("skip-creates")) await benchCreates(Number(args.get("seconds") ?? 2));
  if (!args.has("skip-replay")) await benchReplay(Number(args.get("replay-pets") ?? 1_000_000));
}
