import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJsonLogger } from "../../src/observe/log.ts";
import type { OutputStream } from "../../src/runtime/contract.ts";

/** A stream that takes every write at once and keeps its text. */
function memoryStream(): OutputStream & { readonly written: string[] } {
  const written: string[] = [];
  return { written, write: (text) => (written.push(text), Promise.resolve()) };
}

describe("createJsonLogger()", () => {
  it("writes one JSON object per line with time and level first", async () => {
    const stream = memoryStream();
    const log = createJsonLogger(stream);
    log.info({ msg: "request", status: 200 });
    log.warn({});
    await log.flush();
    const lines = stream.written.join("").trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(Object.keys(lines[0]), ["time", "level", "msg", "status"]);
    assert.equal(lines[0].level, "info");
    assert.equal(lines[1].level, "warn");
    assert.ok(!Number.isNaN(Date.parse(lines[0].time)));
  });

  it("hands a turn's lines to stdout in one write, and flush() waits until it took them", async () => {
    const writes: string[] = [];
    let took = () => {};
    const log = createJsonLogger({
      write: (text) => (writes.push(text), new Promise((resolve) => (took = resolve))),
    });
    log.info({ msg: "one" });
    log.info({ msg: "two" });
    let flushed = false;
    const flushing = log.flush().then(() => (flushed = true));
    assert.equal(writes.length, 1);
    assert.equal(writes[0].split("\n").length, 3);
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(flushed, false);
    took();
    await flushing;
    assert.equal(log.droppedLines(), 0);
  });

  it("flush() gives up on a stdout that never takes its lines", async () => {
    const log = createJsonLogger({ write: () => new Promise(() => {}) });
    log.info({ msg: "never read" });
    const started = performance.now();
    await log.flush();
    const waited = performance.now() - started;
    assert.ok(waited >= 400 && waited < 2_000, `waited ${waited} ms`);
  });

  it("request() writes the line info() would write for the same fields, in the same order", async () => {
    const stream = memoryStream();
    const log = createJsonLogger(stream);
    const lines = [
      { method: "GET", path: "/v1/pets/1", status: 200, durationMs: 0.125, requestId: "r-1" },
      { method: "POST", path: '/a"b\\c\u0001é😀', status: 201, durationMs: 3, requestId: "r-2" },
    ];
    const extras = [
      { key: "", traceId: undefined },
      { key: "0123abcd", traceId: undefined },
      { key: "0123abcd", traceId: "4bf92f3577b34da6a3ce929d0e0e4736" },
      { key: "", traceId: "4bf92f3577b34da6a3ce929d0e0e4736" },
    ];
    for (const line of lines) {
      for (const extra of extras) {
        log.request({ ...line, ...extra });
        const fields: Record<string, unknown> = { msg: "request", ...line };
        if (extra.key !== "") fields.key = extra.key;
        if (extra.traceId !== undefined) fields.traceId = extra.traceId;
        log.info(fields);
      }
    }
    await log.flush();
    const text = stream.written.join("").trimEnd().split("\n");
    assert.equal(text.length, 16);
    for (let i = 0; i < text.length; i += 2) {
      // Same text, time aside (the two lines may straddle a millisecond).
      const strip = (line: string) => line.replace(/^\{"time":"[^"]*"/, "");
      assert.equal(strip(text[i]), strip(text[i + 1]));
      JSON.parse(text[i]);
    }
  });
});
