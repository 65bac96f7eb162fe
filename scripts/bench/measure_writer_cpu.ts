/**
 * The JSON-lines store's creates without HTTP, against a peer-like queue (one write, one
 * fdatasync per batch, one batch at a time, as `peers/group_commit_server.ts` does): creates per
 * second and process CPU per create at 64 concurrent creators. Tells whether the durable POST gap
 * lies in the store or in the request path around it. Prints figures; asserts nothing.
 *
 *   node_modules/.bin/bun scripts/bench/measure_writer_cpu.ts [--no-sync] [--seconds=2]
 *   node_modules/.bin/deno run -A scripts/bench/measure_writer_cpu.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { NewPet } from "../../src/schemas/pet.ts";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import { petJson } from "../../src/store/pet_json.ts";
import { noSyncFileLayer } from "./no_sync_file_layer.ts";

const sync = !process.argv.includes("--no-sync");
const seconds = Number(process.argv.find((arg) => arg.startsWith("--seconds="))?.slice(10) ?? 2);
const CREATORS = 64;
const pet: NewPet = { name: "Rex", categoryId: 12n, status: "sold" };

/** 64 loops of awaited creates for `seconds`; prints rate and CPU per create. */
async function run(name: string, create: (pet: NewPet) => Promise<unknown>): Promise<void> {
  let count = 0;
  const end = performance.now() + seconds * 1000;
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: CREATORS }, async () => {
    while (performance.now() < end) {
      await create(pet);
      count++;
    }
  }));
  const cpu = process.cpuUsage(before);
  console.log(
    `  ${name.padEnd(10)} ${(count / seconds).toFixed(0).padStart(8)} creates/s  ` +
      `${((cpu.user + cpu.system) / count).toFixed(2)} µs CPU/create`,
  );
}

/** The peer's queue: joined lines, one write and one fdatasync per batch, one batch at a time. */
async function peerLike(
  dir: string,
): Promise<{ create: (pet: NewPet) => Promise<boolean>; close(): Promise<void> }> {
  const file = await open(join(dir, "pets.jsonl"), "a");
  const encoder = new TextEncoder();
  let queue: { line: string; done: (ok: boolean) => void }[] = [];
  let writing = false;
  let nextId = 1;
  const flush = async () => {
    writing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      await file.write(encoder.encode(batch.map((waiting) => waiting.line).join("")));
      if (sync) await file.datasync();
      for (const waiting of batch) waiting.done(true);
    }
    writing = false;
  };
  return {
    create: (pet) =>
      new Promise((done) => {
        queue.push({ line: petJson(nextId++, pet) + "\n", done });
        if (!writing) void flush();
      }),
    close: () => file.close(),
  };
}

const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
console.log(
  `${runtime}: ${CREATORS} concurrent creators, ${seconds} s each, fdatasync ${
    sync ? "on" : "off"
  }`,
);
for (let round = 0; round < 2; round++) {
  const storeDir = mkdtempSync(join(tmpdir(), "animal-store-writer-cpu-"));
  const store = await openJsonlStore({
    dataDir: storeDir,
    ...(sync ? {} : { files: noSyncFileLayer() }),
  });
  await run("store", (pet) => store.create(pet));
  await store.close();
  rmSync(storeDir, { recursive: true, force: true });

  const peerDir = mkdtempSync(join(tmpdir(), "animal-store-writer-cpu-"));
  const peer = await peerLike(peerDir);
  await run("peer-like", peer.create);
  await peer.close();
  rmSync(peerDir, { recursive: true, force: true });
}
