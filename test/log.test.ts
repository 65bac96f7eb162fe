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
});
