import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { PET_RECORD_PREFIX, PetLine } from "../../src/store/jsonl/format.ts";
import { line } from "./helpers.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Parses `text` amid other bytes: its fields, or why it was refused. */
function parse(text: string, strict: boolean) {
  const bytes = encoder.encode(`xx${text}yy`);
  const record = new PetLine();
  const reason = record.parse(bytes, 2, bytes.length - 2, strict);
  if (reason !== undefined) return reason;
  const { id, status, claim } = record;
  const petText = decoder.decode(bytes.subarray(record.petStart, record.petEnd));
  return { id, status, claim, petText, pet: record.pet(bytes) };
}

/** The pet object's text in a line: after the prefix, before the claim or the closing brace. */
function petTextOf(text: string): string {
  const claim = text.lastIndexOf(',"idempotency":');
  return text.slice(PET_RECORD_PREFIX.length, claim < 0 ? -1 : claim);
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

describe("PetLine", () => {
  it("parse() accepts what the writer writes and finds id, status, pet text and claim", () => {
    for (const text of valid) {
      const fast = parse(text, false);
      const strict = parse(text, true);
      assert.ok(typeof fast === "object" && typeof strict === "object", text);
      const expected = JSON.parse(text);
      assert.equal(fast.id, expected.pet.id);
      assert.equal(fast.status, expected.pet.status);
      assert.equal(fast.petText, petTextOf(text));
      assert.deepEqual(fast.claim, expected.idempotency);
      assert.deepEqual(strict, fast, "the strict check reads the same fields");
    }
  });

  it("pet() gives the pet's fields with the categoryId's exact digits", () => {
    const parsed = parse(valid[2], false);
    assert.deepEqual(typeof parsed === "object" && parsed.pet, {
      name: "Pet 9007199254740991",
      categoryId: -9223372036854775808n,
      status: "sold",
    });
  });

  it("parse() refuses every line of this set, strict or not, for the same reason", () => {
    for (const text of invalid) {
      const reason = parse(text, false);
      assert.equal(typeof reason, "string", text);
      assert.equal(parse(text, true), reason, text);
    }
  });

  it("parse() in strict mode also checks the name's rules and its exact text", () => {
    const blank = line(1, { name: "   " }).trimEnd();
    assert.equal(typeof parse(blank, false), "object");
    assert.equal(parse(blank, true), "has a pet name that is not acceptable");
    const escaped = '{"type":"pet","v":1,"pet":{"id":1,"name":"\\u0041","categoryId":1}}';
    assert.equal(typeof parse(escaped, false), "object");
    assert.equal(parse(escaped, true), "is not in the exact form this service writes");
  });
});
