import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import {
  BROTLI_ONCE,
  BROTLI_PER_REQUEST,
  compressBody,
  zlibBrotli,
} from "../../src/http/compression.ts";
import { type BrotliEncoder } from "../../src/runtime/contract.ts";
import { loadWasmBrotli } from "../../src/runtime/wasm_brotli.ts";
import { petJson } from "../../src/store/store.ts";

const WORDS = "Rex Bella Luna Max Milo Daisy Whiskers Mochi Otis Ñandú 猫 🐕 the of brave".split(
  " ",
);

/** A list page of `count` pets with varied names of up to `nameLength` code points. */
function page(count: number, nameLength: number, seed: number): Uint8Array<ArrayBuffer> {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648);
  const pets: string[] = [];
  for (let id = 1; id <= count; id++) {
    let name = "";
    while ([...name].length < nameLength) name += `${WORDS[next() % WORDS.length]} `;
    pets.push(
      petJson(id, { name: [...name].slice(0, nameLength).join(""), categoryId: BigInt(next()) }),
    );
  }
  return new TextEncoder().encode(`[${pets.join(",")}]`);
}

/** Plain Uint8Array copies, so that a Buffer and a Uint8Array of the same bytes compare equal. */
function bytes(view: Uint8Array): Uint8Array {
  return new Uint8Array(view);
}

const PAGES = [
  page(15, 120, 1),
  page(20, 120, 2),
  page(100, 120, 3),
  page(100, 200, 4),
  page(7, 30, 5),
];

describe("loadWasmBrotli()", () => {
  const wasm = loadWasmBrotli();

  it("gives node:zlib's bytes for list pages at the service's qualities", () => {
    for (const body of PAGES) {
      for (const quality of new Set([BROTLI_PER_REQUEST, BROTLI_ONCE])) {
        assert.deepEqual(
          bytes(wasm(body, quality)),
          bytes(zlibBrotli(body, quality)),
          `${body.byteLength} B`,
        );
      }
    }
  });

  it("gives a stream that decompresses to the body", () => {
    for (const body of PAGES) {
      assert.deepEqual(new Uint8Array(brotliDecompressSync(wasm(body, BROTLI_ONCE))), body);
    }
  });
});

describe("compressBody()", () => {
  const body = PAGES[1];

  it("returns an identity body unchanged", () => {
    assert.equal(compressBody(body, "identity", "once"), body);
  });

  it("compresses br with the encoder it is given, at the quality of the use", () => {
    const calls: number[] = [];
    const encoder: BrotliEncoder = (input, quality) => {
      calls.push(quality);
      return zlibBrotli(input, quality);
    };
    const once = compressBody(body, "br", "once", encoder);
    compressBody(body, "br", "per_request", encoder);
    assert.deepEqual(calls, [BROTLI_ONCE, BROTLI_PER_REQUEST]);
    assert.deepEqual(new Uint8Array(brotliDecompressSync(once)), body);
  });

  it("compresses br with node:zlib's brotli when given no encoder", () => {
    assert.deepEqual(bytes(compressBody(body, "br", "once")), bytes(zlibBrotli(body, BROTLI_ONCE)));
  });

  it("never hands gzip to the brotli encoder", () => {
    const encoder: BrotliEncoder = () => assert.fail("brotli encoder called for gzip");
    const gzip = compressBody(body, "gzip", "per_request", encoder);
    assert.deepEqual(new Uint8Array(gunzipSync(gzip)), body);
  });

  it("returns bytes that own their whole buffer, so the cache counts them right", () => {
    for (const coding of ["br", "gzip"] as const) {
      for (const brotli of [zlibBrotli, loadWasmBrotli()]) {
        const bytes = compressBody(body, coding, "once", brotli);
        assert.equal(bytes.byteOffset, 0);
        assert.equal(bytes.buffer.byteLength, bytes.byteLength);
      }
    }
  });
});
