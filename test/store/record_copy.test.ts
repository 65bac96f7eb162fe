import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ByteSource, copyRecordLines } from "../../src/store/jsonl/record_copy.ts";
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

async function copy(text: string, check: "replay" | "full" = "replay", piece?: number) {
  let out = "";
  const result = await copyRecordLines(sourceOf(text, piece), (bytes) => {
    out += decoder.decode(bytes, { stream: true });
    return Promise.resolve();
  }, { check });
  return { result, out };
}

describe("copyRecordLines()", () => {
  const claim = { scope: "k1", key: "retry-7", digest: "d".repeat(64) };
  const sound = line(1, { status: "sold" }) + line(2) + line(5, { status: "available" }, claim);

  for (const check of ["replay", "full"] as const) {
    it(`copyRecordLines() copies complete records byte for byte, keys included (${check})`, async () => {
      const { result, out } = await copy(sound, check);
      assert.equal(out, sound);
      assert.deepEqual(result, {
        ok: true,
        pets: 3,
        byStatus: { available: 1, pending: 0, sold: 1, none: 1 },
        lastId: 5,
        bytes: encoder.encode(sound).length,
        tornTail: 0,
      });
    });
  }

  it("copyRecordLines() leaves out a torn last line", async () => {
    const { result, out } = await copy(sound + `{"type":"pet","v":1,"pet":{"id":6,"na`);
    assert.equal(out, sound);
    assert.equal(result.ok && result.pets, 3);
    assert.equal(result.ok && result.tornTail, 37);
  });

  it("copyRecordLines() leaves out a line still being written (all but its newline)", async () => {
    const inProgress = line(6).slice(0, -1);
    const { result, out } = await copy(sound + inProgress, "replay", 1 << 20);
    assert.equal(out, sound);
    assert.equal(result.ok && result.lastId, 5);
  });

  it("copyRecordLines() stops at a damaged line and names it", async () => {
    const { result } = await copy(line(1) + "not json\n" + line(3));
    assert.deepEqual(result, { ok: false, line: 2, reason: "is not valid JSON" });
  });

  it("copyRecordLines() refuses ids that do not increase", async () => {
    const { result } = await copy(line(2) + line(2));
    assert.deepEqual(result, {
      ok: false,
      line: 2,
      reason: "has id 2, not above the id 2 before it",
    });
  });

  it("copyRecordLines() refuses a line that is not UTF-8", async () => {
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
    const result = await copyRecordLines(source, () => Promise.resolve(), { check: "replay" });
    assert.deepEqual(result, { ok: false, line: 2, reason: "is not valid UTF-8" });
  });

  it("copyRecordLines() full check refuses a name the fast check lets through", async () => {
    const blank = line(1, { name: "   " });
    assert.equal((await copy(blank, "replay")).result.ok, true);
    const { result } = await copy(blank, "full");
    assert.deepEqual(result, {
      ok: false,
      line: 1,
      reason: "has a pet name that is not acceptable",
    });
  });
});
