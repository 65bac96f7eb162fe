/** Deno's brotli encoder (runtime/deno.ts says why not its own). */
import { createRequire } from "node:module";
import type { BrotliEncoder } from "./contract.ts";

/**
 * brotli-wasm: one memory, reused, so bounded; at quality 5 to 9 the bytes of node:zlib. Loaded
 * with `require`, whose entry reads the .wasm beside it (the `import` entry fetches it by URL).
 */
export function loadWasmBrotli(): BrotliEncoder {
  const require = createRequire(import.meta.url);
  const wasm = require("brotli-wasm") as {
    compress(body: Uint8Array, options: { quality: number }): Uint8Array;
  };
  return (body, quality) => wasm.compress(body, { quality });
}
