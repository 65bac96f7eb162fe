/**
 * Compressing bodies, synchronously (a few KB at most). The level depends only on whether the body
 * can change, never on the cache, so the bytes are the same with it on or off (docs/caching.md).
 */
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { BrotliEncoder } from "../runtime/contract.ts";

/** Brotli quality: below 5 Deno's brotli and the C library differ; above, little gain for CPU. */
export const BROTLI_PER_REQUEST = 5;
export const BROTLI_ONCE = 5;
const GZIP_PER_REQUEST = 6;
const GZIP_ONCE = 9;

/** Bodies of this many bytes or fewer are always sent as they are. */
export const COMPRESSION_THRESHOLD = 1024;

export type ContentCoding = "br" | "gzip" | "identity";

/** node:zlib's brotli (the C library on Node and Bun). */
export function zlibBrotli(body: Uint8Array, quality: number): Uint8Array {
  return brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
    },
  });
}

/** `body` in the coding (identity: unchanged). */
export function compressBody(
  body: Uint8Array<ArrayBuffer>,
  coding: ContentCoding,
  use: "per_request" | "once",
  brotli: BrotliEncoder = zlibBrotli,
): Uint8Array<ArrayBuffer> {
  if (coding === "identity") return body;
  if (coding === "gzip") {
    return toBytes(gzipSync(body, { level: use === "once" ? GZIP_ONCE : GZIP_PER_REQUEST }));
  }
  return toBytes(brotli(body, use === "once" ? BROTLI_ONCE : BROTLI_PER_REQUEST));
}

/** A Uint8Array owning exactly its bytes: a cached view of zlib's chunk would keep it all alive. */
function toBytes(buffer: Uint8Array): Uint8Array<ArrayBuffer> {
  if (buffer.byteOffset === 0 && buffer.buffer.byteLength === buffer.byteLength) {
    return new Uint8Array(buffer.buffer as ArrayBuffer);
  }
  return new Uint8Array(buffer);
}
