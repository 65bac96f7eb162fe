/**
 * Resident memory (VmRSS) growth and cost per compression of a list page, for each compressor a
 * runtime offers, to find out which of them keep memory bounded (docs/caching.md, "Memory"). Runs
 * the same way on every runtime:
 *
 *   node_modules/.bin/deno run -A scripts/bench/measure_compression_memory.ts
 *   node_modules/.bin/bun scripts/bench/measure_compression_memory.ts
 *   node_modules/.bin/esbuild scripts/bench/measure_compression_memory.ts --bundle --platform=node \
 *     --format=esm --outfile=/tmp/measure_compression_memory.mjs \
 *     && node /tmp/measure_compression_memory.mjs
 *
 * Each variant runs in a fresh child process (the same runtime, the same script) so that one's
 * memory does not hide another's. Options: `--variant=NAME` (one variant, in this process),
 * `--br-calls=N` (default 60000), `--gzip-calls=N` (default 20000), `--pets=N` (page size,
 * default 20; names of 120 characters). Prints one line per variant: RSS before, at each tenth,
 * and after (MiB), the growth per call (bytes) and the median µs per call.
 *
 * Variants: br-sync (node:zlib's `brotliCompressSync`), br-async (`brotliCompress`), br-stream
 * (`CompressionStream("brotli")`, where the runtime has it), br-wasm (the `brotli-wasm` package,
 * as src/http/compression.ts loads it for Deno), br-js (the `brotli` package, when given
 * `--brotli-js=PATH`), and gzip-sync, gzip-async, gzip-stream like the first three. All at
 * brotli quality 5 and gzip level 6, the service's per-request levels.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import process from "node:process";
import { promisify } from "node:util";
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from "node:zlib";
import { type BrotliEncoder, loadWasmBrotli } from "../../src/http/compression.ts";
import { petJson } from "../../src/store/pet_json.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: string) =>
  args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const brCalls = Number(option("br-calls", "60000"));
const gzipCalls = Number(option("gzip-calls", "20000"));
const pets = Number(option("pets", "20"));
const brotliJs = option("brotli-js", "");
let wasmBrotli: BrotliEncoder | undefined;

type Compress = (body: Uint8Array<ArrayBuffer>) => Uint8Array | Promise<Uint8Array>;

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
const BROTLI_PARAMS = {
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 5,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
  },
};

async function throughStream(format: string, body: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const stream = new Blob([body]).stream().pipeThrough(
    new CompressionStream(format as CompressionFormat),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const VARIANTS: Record<string, Compress> = {
  "br-sync": (body) => brotliCompressSync(body, BROTLI_PARAMS),
  "br-async": (body) => brotliAsync(body, BROTLI_PARAMS),
  "br-stream": (body) => throughStream("brotli", body),
  "br-wasm": (body) => (wasmBrotli ??= loadWasmBrotli())(body, 5),
  // The `brotli` package (the C encoder translated to JavaScript), not a dependency: install it
  // somewhere and pass --brotli-js=PATH/node_modules/brotli/compress.js.
  "br-js": async (body) => {
    if (brotliJs === "") {
      throw new Error("give --brotli-js=PATH to the brotli package's compress.js");
    }
    const module = await import(brotliJs);
    return (await module.compress(body, { quality: 5, mode: 1 }))!;
  },
  "gzip-sync": (body) => gzipSync(body, { level: 6 }),
  "gzip-async": (body) => gzipAsync(body, { level: 6 }),
  "gzip-stream": (body) => throughStream("gzip", body),
};

const WORDS =
  ("Rex Bella Luna Max Charlie Milo Daisy Whiskers Shadow Pepper Ginger Biscuit Mochi " +
    "Ziggy Nala Otis Juniper Pickles Waffles Tofu the brave of small hill river quick grey old")
    .split(" ");

/** A page of `count` pets with varied names of 120 characters, as the service sends it. */
export function page(count: number): Uint8Array<ArrayBuffer> {
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const items: string[] = [];
  for (let id = 1; id <= count; id++) {
    let name = "";
    while (name.length < 120) name += `${WORDS[next() % WORDS.length]} `;
    items.push(petJson(id, {
      name: name.slice(0, 120),
      categoryId: BigInt(next()),
      status: (["available", "pending", "sold"] as const)[id % 3],
    }));
  }
  return new TextEncoder().encode(`[${items.join(",")}]`);
}

function rssMiB(): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
  return Number(match![1]) / 1024;
}

function collectGarbage(): void {
  const globals = globalThis as { gc?: () => void; Bun?: { gc(force: boolean): void } };
  globals.Bun?.gc(true);
  globals.gc?.();
}

async function runVariant(name: string): Promise<void> {
  const compress = VARIANTS[name];
  const body = page(pets);
  const calls = name.startsWith("br") ? brCalls : gzipCalls;
  try {
    await compress(body);
  } catch (error) {
    console.log(`${name.padEnd(11)} not available: ${(error as Error).message.split("\n")[0]}`);
    return;
  }
  collectGarbage();
  const before = rssMiB();
  const samples: number[] = [];
  const micros: number[] = [];
  const tenth = Math.max(1, Math.floor(calls / 10));
  for (let i = 1; i <= calls; i++) {
    const started = performance.now();
    await compress(body);
    micros.push((performance.now() - started) * 1000);
    if (i % tenth === 0) samples.push(rssMiB());
  }
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const after = rssMiB();
  micros.sort((a, b) => a - b);
  const perCall = ((after - before) * 1024 * 1024) / calls;
  console.log(
    `${name.padEnd(11)} ${body.byteLength} B x ${calls}: RSS ${before.toFixed(1)} → ` +
      `${after.toFixed(1)} MiB (+${(after - before).toFixed(1)}), ${perCall.toFixed(0)} B/call, ` +
      `median ${micros[micros.length >> 1].toFixed(0)} µs; tenths: ` +
      samples.map((value) => value.toFixed(0)).join(" "),
  );
}

/** This script again on the same runtime, for one variant. */
function childCommand(variant: string): [string, string[]] {
  const globals = globalThis as { Deno?: { execPath(): string } };
  const rest = [...args, `--variant=${variant}`];
  if (globals.Deno !== undefined) {
    return [globals.Deno.execPath(), [
      "run",
      "-A",
      "--v8-flags=--expose-gc",
      process.argv[1],
      ...rest,
    ]];
  }
  return [
    process.execPath,
    ["--expose-gc", process.argv[1], ...rest].filter((arg) =>
      !(arg === "--expose-gc" && "Bun" in globalThis)
    ),
  ];
}

const only = option("variant", "");
if (only !== "") {
  await runVariant(only);
} else {
  const versions = process.versions as Record<string, string | undefined>;
  console.log(
    `runtime: ${
      versions.bun
        ? `bun ${versions.bun}`
        : versions.deno
        ? `deno ${versions.deno}`
        : `node ${versions.node}`
    }; ` +
      `${pets}-pet page; ${brCalls} br and ${gzipCalls} gzip calls per variant`,
  );
  for (const variant of Object.keys(VARIANTS)) {
    const [command, commandArgs] = childCommand(variant);
    const result = spawnSync(command, commandArgs, { stdio: "inherit" });
    if (result.status !== 0) console.log(`${variant}: exited ${result.status}`);
  }
}
