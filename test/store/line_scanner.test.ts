import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LineScanner } from "../../src/store/jsonl/line_scanner.ts";
import { parseRecordLine } from "../../src/store/jsonl/record.ts";
import { line } from "./helpers.ts";

const encoder = new TextEncoder();

function scan(text: string): LineScanner | undefined {
  const bytes = encoder.encode(`xx${text}yy`);
  const scanner = new LineScanner();
  return scanner.scan(bytes, 2, bytes.length - 2) ? scanner : undefined;
}

const valid = [
  line(1).trimEnd(),
  line(7, { status: "pending", name: 'q"\\😀' }).trimEnd(),
  line(9007199254740991, { categoryId: -9223372036854775808n, status: "sold" }).trimEnd(),
  line(3, { categoryId: 9223372036854775807n }, { scope: "s", key: 'a"}b', digest: "d" }).trimEnd(),
];

const invalid = [
  "",
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a\\qb","categoryId":1}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a\\u12g4","categoryId":1}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a\\u12","categoryId":1}}',
  "{}",
  '{"type":"pet","v":2,"pet":{"id":1,"name":"a","categoryId":1}}',
  '{"type":"pet","v":1,"pet":{"id":0,"name":"a","categoryId":1}}',
  '{"type":"pet","v":1,"pet":{"id":01,"name":"a","categoryId":1}}',
  '{"type":"pet","v":1,"pet":{"id":9007199254740992,"name":"a","categoryId":1}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":1.5}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":1e3}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":-0}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":9223372036854775808}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":1,"status":"gone"}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":1}} ',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":1},"idempotency":{"key":"k","scope":"s","digest":"d"}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":1},"idempotency":{"scope":"s","key":"k"}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a\\","categoryId":1}}',
];

describe("LineScanner", () => {
  it("scan() accepts what the writer writes and finds id, status, pet text and claim", () => {
    for (const text of valid) {
      const scanner = scan(text);
      const full = parseRecordLine(text);
      assert.ok(scanner && full.ok, text);
      assert.equal(scanner.id, full.id);
      assert.equal(
        scanner.status,
        full.status === undefined ? 0 : ["available", "pending", "sold"].indexOf(full.status) + 1,
      );
      const bytes = encoder.encode(`xx${text}yy`);
      assert.equal(
        new TextDecoder().decode(bytes.subarray(scanner.petStart, scanner.petEnd)),
        full.petJson,
      );
      assert.deepEqual(scanner.claim, full.claim);
    }
  });

  it("scan() rejects every line the full check rejects in this set", () => {
    for (const text of invalid) {
      assert.equal(scan(text), undefined, text);
      assert.equal(parseRecordLine(text).ok, false, text);
    }
  });
});
