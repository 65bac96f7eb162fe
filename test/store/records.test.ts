import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ByteSource, readRecords } from "../../src/store/jsonl/records.ts";
import { line } from "./helpers.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A source that hands out `text` in pieces of at most `piece` bytes. */
function sourceOf(text: string, piece = 7): ByteSource {
  const bytes = encoder.encode(text);
  let at = 0;
  return {
    read(into, offset, length) {
      const count = Math.min(length, piece, bytes.length - at);
      into.set(bytes.subarray(at, at + count), offset);
      at += count;
      return Promise.resolve(count);
    },
  };
}

/** Reads `text`, copying each accepted chunk (as backup and restore do). */
async function copy(text: string, check: "replay" | "full" = "replay", piece?: number) {
  let out = "";
  const result = await readRecords(sourceOf(text, piece), {
    strict: check === "full",
    onChunk: (bytes) => {
      out += decoder.decode(bytes, { stream: true });
    },
  });
  return { result, out };
}

describe("readRecords()", () => {
  const claim = { scope: "k1", key: "retry-7", digest: "d".repeat(64) };
  const sound = line(1, { status: "sold" }) + line(2) + line(5, { status: "available" }, claim);

  for (const check of ["replay", "full"] as const) {
    it(`readRecords() copies complete records byte for byte, keys included (${check})`, async () => {
      const { result, out } = await copy(sound, check);
      assert.equal(out, sound);
      assert.deepEqual(result, {
        pets: 3,
        byStatus: { available: 1, pending: 0, sold: 1, none: 1 },
        lastId: 5,
        length: encoder.encode(sound).length,
        tornTail: undefined,
        damage: undefined,
        damagedLines: 0,
      });
    });
  }

  it("readRecords() leaves out a torn last line", async () => {
    const { result, out } = await copy(sound + `{"type":"pet","v":1,"pet":{"id":6,"na`);
    assert.equal(out, sound);
    assert.equal(result.pets, 3);
    assert.deepEqual(result.tornTail, { offset: encoder.encode(sound).length, length: 37 });
  });

  it("readRecords() leaves out a line still being written (all but its newline)", async () => {
    const inProgress = line(6).slice(0, -1);
    const { result, out } = await copy(sound + inProgress, "replay", 1 << 20);
    assert.equal(out, sound);
    assert.equal(result.lastId, 5);
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
    const result = await readRecords(source, { strict: false });
    assert.deepEqual(result.damage, { line: 2, reason: "is not valid UTF-8" });
  });

  it("readRecords() full check refuses a name the fast check lets through", async () => {
    const blank = line(1, { name: "   " });
    assert.equal((await copy(blank, "replay")).result.damage, undefined);
    const { result } = await copy(blank, "full");
    assert.deepEqual(result.damage, { line: 1, reason: "has a pet name that is not acceptable" });
  });
});
