import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJsonLogger } from "../src/log.ts";

describe("createJsonLogger()", () => {
  it("writes one JSON object per line with time and level first", () => {
    const written: string[] = [];
    const log = createJsonLogger({ write: (text) => written.push(text), backlog: () => 0 });
    log.info({ msg: "request", status: 200 });
    log.warn({});
    log.flush();
    const lines = written.join("").trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(Object.keys(lines[0]), ["time", "level", "msg", "status"]);
    assert.equal(lines[0].level, "info");
    assert.equal(lines[1].level, "warn");
    assert.ok(!Number.isNaN(Date.parse(lines[0].time)));
  });

  it("drops and counts lines while the reader is backlogged, then says how many", () => {
    const written: string[] = [];
    let backlog = 64 * 1024 * 1024;
    const log = createJsonLogger({ write: (text) => written.push(text), backlog: () => backlog });
    log.info({ msg: "one" });
    log.info({ msg: "two" });
    log.flush();
    assert.deepEqual(written, []);
    backlog = 0;
    log.info({ msg: "three" });
    log.flush();
    const lines = written.join("").trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.equal(lines[0].level, "warn");
    assert.match(lines[0].msg, /^2 log lines dropped/);
    assert.equal(lines[1].msg, "three");
  });

  it("request() writes the line info() would write for the same fields, in the same order", () => {
    const written: string[] = [];
    const log = createJsonLogger({ write: (text) => written.push(text), backlog: () => 0 });
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
    log.flush();
    const text = written.join("").trimEnd().split("\n");
    assert.equal(text.length, 16);
    for (let i = 0; i < text.length; i += 2) {
      // Same text, time aside (the two lines may straddle a millisecond).
      const strip = (line: string) => line.replace(/^\{"time":"[^"]*"/, "");
      assert.equal(strip(text[i]), strip(text[i + 1]));
      JSON.parse(text[i]);
    }
  });
});
