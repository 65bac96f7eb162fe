import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ByteSource, readRecords } from "../../../src/store/catalogue/read_records.ts";
import { byteSource, line } from "../helpers.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Reads `text`, copying what a backup or restore copies (`onCopy`). */
async function copy(text: string, piece?: number) {
  let out = "";
  const result = await readRecords(byteSource(text, piece ?? 7), {
    onCopy: (bytes) => {
      out += decoder.decode(bytes, { stream: true });
      return Promise.resolve();
    },
  });
  return { result, out };
}

describe("readRecords()", () => {
  const claim = { scope: "k1", key: "retry-7", digest: "d".repeat(64) };
  const sound = line(1, { status: "sold" }) + line(2) + line(5, { status: "available" }, claim);

  it("readRecords() copies complete records byte for byte, keys included", async () => {
    const { result, out } = await copy(sound);
    assert.equal(out, sound);
    assert.deepEqual(result, {
      pets: 3,
      byStatus: { available: 1, pending: 0, sold: 1, none: 1 },
      lastId: 5,
      length: encoder.encode(sound).length,
      tornTail: undefined,
      missingNewline: undefined,
      checked: false,
      damage: undefined,
      damagedLines: 0,
    });
  });

  it("readRecords() leaves out a torn last line", async () => {
    const { result, out } = await copy(sound + `{"type":"pet","v":1,"pet":{"id":6,"na`);
    assert.equal(out, sound);
    assert.equal(result.pets, 3);
    assert.deepEqual(result.tornTail, { offset: encoder.encode(sound).length, length: 37 });
  });

  it("readRecords() keeps a whole last record that lacks only its newline, and the copy gets it", async () => {
    for (const piece of [7, 1 << 20]) {
      const { result, out } = await copy(sound + line(6).slice(0, -1), piece);
      assert.equal(out, sound + line(6), "the copy holds the record with its newline");
      assert.equal(result.lastId, 6);
      assert.equal(result.pets, 4);
      assert.equal(result.tornTail, undefined);
      const offset = encoder.encode(sound + line(6)).length - 1;
      assert.deepEqual(result.missingNewline, { offset, line: 4 });
      assert.equal(result.length, offset, "the file's own bytes");
    }
  });

  it("readRecords() still leaves out a last record cut anywhere but at its newline", async () => {
    const whole = line(6, {}, { ...claim, key: "other" });
    for (const cut of [1, 2, 3, 30, whole.length - 10]) {
      const { result, out } = await copy(sound + whole.slice(0, -1 - cut));
      assert.equal(out, sound, `cut ${cut}`);
      assert.equal(result.missingNewline, undefined);
      assert.equal(result.tornTail?.length, encoder.encode(whole).length - 1 - cut);
    }
  });

  it("readRecords() leaves out a last record lacking its newline when the rules refuse it", async () => {
    const { result, out } = await copy(sound + line(4).slice(0, -1));
    assert.equal(out, sound);
    assert.equal(result.missingNewline, undefined);
    assert.equal(result.tornTail?.length, line(4).length - 1, "an id not above the one before");
  });

  it("readRecords() stops at a damaged line and names it", async () => {
    const { result, out } = await copy(line(1) + "not json\n" + line(3));
    assert.deepEqual(result.damage, { line: 2, reason: "is not valid JSON" });
    assert.equal(out, line(1), "the chunks before the damage, never the damaged one");
  });

  it("readRecords() refuses ids that do not increase", async () => {
    const { result } = await copy(line(2) + line(2));
    assert.deepEqual(result.damage, { line: 2, reason: "has id 2, not above the id 2 before it" });
  });

  it("readRecords() refuses a second record with an idempotency key an earlier line holds", async () => {
    const other = { ...claim, scope: "k2" };
    const { result } = await copy(line(1, {}, claim) + line(2, {}, other) + line(3, {}, claim));
    assert.deepEqual(result.damage, {
      line: 3,
      reason: 'repeats the idempotency key "retry-7" of line 1',
    });
  });

  it("readRecords() refuses a line that is not UTF-8", async () => {
    const bytes = new Uint8Array([...encoder.encode(line(1)), 0xff, 0x0a]);
    let at = 0;
    const source: ByteSource = {
      read(into, offset, length) {
        const count = Math.min(length, bytes.length - at);
        into.set(bytes.subarray(at, at + count), offset);
        at += count;
        return Promise.resolve(count);
      },
    };
    const result = await readRecords(source, {});
    assert.deepEqual(result.damage, { line: 2, reason: "is not valid UTF-8" });
  });

  it("readRecords() refuses a name the API refuses", async () => {
    const { result } = await copy(line(1, { name: "   " }));
    assert.deepEqual(result.damage, { line: 1, reason: "has a pet name that is blank" });
  });
});
