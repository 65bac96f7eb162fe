/** Deno's brotli encoder (runtime/deno.ts says why not its own): brotli-wasm. */
import { createRequire } from "node:module";
import type { BrotliEncoder } from "./contract.ts";

/**
 * The brotli of `brotli-wasm` (Rust's brotli as WebAssembly): one memory that grows to the largest
 * compression's need and is reused, so bounded on any runtime. No mode or size hint, yet at
 * quality 5 to 9 the bytes of node:zlib (test/http/compression.test.ts). Loaded with `require`,
 * whose entry reads the .wasm file beside it: the `import` entry fetches it by URL, which Node
 * cannot do for a file.
 */
export function loadWasmBrotli(): BrotliEncoder {
  const require = createRequire(import.meta.url);
  const wasm = require("brotli-wasm") as {
    compress(body: Uint8Array, options: { quality: number }): Uint8Array;
  };
  return (body, quality) => wasm.compress(body, { quality });
}
