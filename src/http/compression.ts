/**
 * Compressing response bodies with node:zlib (Deno, Bun and Node all have it), synchronously: a
 * body is a few KB at most, cheaper than a round trip through the thread pool. A body made per
 * request gets a cheap gzip level; an immutable one (a full page, compressed once and then cached)
 * a higher one. The level depends on immutability only, never on the cache, so a client gets the
 * same bytes with the cache on, off or too small (docs/caching.md). The brotli encoder is the
 * runtime adapter's choice (`RuntimeAdapter.brotliEncoder`, runtime/wasm_brotli.ts on Deno).
 */
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { BrotliEncoder } from "../runtime/contract.ts";

/**
 * Brotli quality for bodies built per request. Below 5, Deno's brotli (a Rust port) and the C
 * library of Node and Bun give different bytes for the same input; from 5 to 9 they agree, and
 * on page-sized JSON 6 to 9 compress no better than 5 while costing more.
 */
export const BROTLI_PER_REQUEST = 5;
/**
 * Brotli quality for bodies compressed once. Not higher: 10 and 11 shrink a page by another
 * 10–15 % but cost 20–100 times as much, and give different bytes on Deno; a page walked once is
 * compressed once and sent once, so that cost would not be spread over many requests.
 */
export const BROTLI_ONCE = 5;
/** gzip levels for bodies built per request and for bodies compressed once. */
export const GZIP_PER_REQUEST = 6;
export const GZIP_ONCE = 9;

/** Bodies of this many bytes or fewer are always sent as they are. */
export const COMPRESSION_THRESHOLD = 1024;

/** A content coding the service can send. */
export type ContentCoding = "br" | "gzip" | "identity";

/** node:zlib's brotli: the C library on Node and Bun. */
export function zlibBrotli(body: Uint8Array, quality: number): Uint8Array {
  return brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
    },
  });
}

/** `body` in the coding (identity returns it unchanged); br with `brotli`. */
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

/**
 * A plain Uint8Array that owns exactly its bytes. zlib may hand back a view into a larger
 * buffer (its output chunk); a cached view would keep the whole chunk alive and break the
 * cache's byte accounting, so such a view is copied.
 */
function toBytes(buffer: Uint8Array): Uint8Array<ArrayBuffer> {
  if (buffer.byteOffset === 0 && buffer.buffer.byteLength === buffer.byteLength) {
    return new Uint8Array(buffer.buffer as ArrayBuffer);
  }
  return new Uint8Array(buffer);
}
