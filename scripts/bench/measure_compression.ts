/**
 * Compression ratio and cost of list pages, to choose the levels in src/http/compression.ts.
 * Prints, for a 20- and a 100-pet page, each coding and level: the compressed size, the ratio
 * (identity bytes / compressed bytes) and the median microseconds per compression. Runs the same
 * way on every runtime (node:zlib only), so the three can be compared:
 *
 *   node_modules/.bin/deno run -A scripts/bench/measure_compression.ts
 *   node_modules/.bin/bun scripts/bench/measure_compression.ts
 *   node_modules/.bin/esbuild scripts/bench/measure_compression.ts --bundle --platform=node \
 *     --format=esm --outfile=/tmp/measure_compression.mjs && node /tmp/measure_compression.mjs
 *
 * `--rounds=N` (default 2000 compressions per cell) and `--quick` (50, to check it works).
 * Two data sets: the benchmark's pets (`Pet 17`, very regular) and pets with varied names and
 * category ids, closer to a real catalogue.
 */
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import process from "node:process";
import { benchPet } from "./peers/pet_fixture.ts";
import { petJson } from "../../src/store/pet_json.ts";
import {
  BROTLI_ONCE,
  BROTLI_PER_REQUEST,
  GZIP_ONCE,
  GZIP_PER_REQUEST,
} from "../../src/http/compression.ts";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const roundsArg = args.find((arg) => arg.startsWith("--rounds="));
const rounds = roundsArg ? Number(roundsArg.slice(9)) : quick ? 50 : 2000;

const WORDS = [
  "Rex",
  "Bella",
  "Luna",
  "Max",
  "Charlie",
  "Milo",
  "Daisy",
  "Whiskers",
  "Shadow",
  "Pepper",
  "Ginger",
  "Biscuit",
  "Mochi",
  "Ziggy",
  "Nala",
  "Otis",
  "Juniper",
  "Pickles",
  "Waffles",
  "Tofu",
];
const STATUSES = [undefined, "available", "pending", "sold"] as const;

/** A deterministic varied pet: two-word names, large category ids, mixed statuses. */
function variedPet(id: number): string {
  const a = WORDS[(id * 7) % WORDS.length];
  const b = WORDS[(id * 13 + 5) % WORDS.length];
  const status = STATUSES[(id * 31) % 4];
  const categoryId = BigInt(id) * 2654435761n % 9007199254740993n;
  return petJson(id, { name: `${a} ${b} the ${id % 97}th`, categoryId, status });
}

function benchPetJson(id: number): string {
  const pet = benchPet(id);
  return petJson(id, { name: pet.name, categoryId: BigInt(pet.categoryId), status: pet.status });
}

function page(count: number, pet: (id: number) => string): Uint8Array {
  const texts: string[] = [];
  for (let id = 1001; id < 1001 + count; id++) texts.push(pet(id));
  return new TextEncoder().encode(`[${texts.join(",")}]`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Median µs of one compression, timed in batches of 10 to stay above the timer's resolution. */
function measure(compress: () => Uint8Array): { bytes: number; micros: number } {
  const bytes = compress().byteLength;
  for (let i = 0; i < Math.min(100, rounds); i++) compress();
  const samples: number[] = [];
  for (let i = 0; i < rounds; i += 10) {
    const start = performance.now();
    for (let j = 0; j < 10; j++) compress();
    samples.push((performance.now() - start) * 100);
  }
  return { bytes, micros: median(samples) };
}

const runtime = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined"
  ? "deno"
  : typeof (globalThis as { Bun?: unknown }).Bun !== "undefined"
  ? "bun"
  : `node ${process.version}`;
console.log(`runtime: ${runtime}; ${rounds} compressions per cell`);
console.log(
  `chosen: br q=${BROTLI_PER_REQUEST} per request, q=${BROTLI_ONCE} once; ` +
    `gzip ${GZIP_PER_REQUEST} per request, ${GZIP_ONCE} once`,
);
console.log("data     pets  identity  coding  level  bytes  ratio  µs/compression");
for (const [dataName, pet] of [["bench", benchPetJson], ["varied", variedPet]] as const) {
  for (const count of [20, 100]) {
    const body = page(count, pet);
    const cells: [string, number, () => Uint8Array][] = [];
    for (const quality of [1, 4, 5, 6, 9, 11]) {
      cells.push(["br", quality, () =>
        brotliCompressSync(body, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: quality,
            [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
          },
        })]);
    }
    for (const level of [1, 6, 9]) cells.push(["gzip", level, () => gzipSync(body, { level })]);
    for (const [coding, level, compress] of cells) {
      const { bytes, micros } = measure(compress);
      console.log(
        [
          dataName.padEnd(7),
          String(count).padStart(5),
          String(body.byteLength).padStart(9),
          coding.padStart(7),
          String(level).padStart(6),
          String(bytes).padStart(6),
          (body.byteLength / bytes).toFixed(2).padStart(6),
          micros.toFixed(1).padStart(15),
        ].join(" "),
      );
    }
  }
}
