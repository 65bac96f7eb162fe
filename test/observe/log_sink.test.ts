import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LogSink, MAX_WAITING_CHARS } from "../../src/observe/log.ts";
import { type OutputStream } from "../../src/runtime/contract.ts";

/** A stream whose writes stay pending until the test settles them, one by one, in order. */
function heldStream(): OutputStream & {
  readonly writes: string[];
  take(): Promise<void>;
  fail(code: string): Promise<void>;
} {
  const writes: string[] = [];
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  // Settling a write lets the sink start the next one (in a microtask): wait for that.
  const settle = async (outcome: (write: (typeof pending)[number]) => void) => {
    outcome(pending.shift()!);
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return {
    writes,
    write: (text) => {
      writes.push(text);
      return new Promise((resolve, reject) => pending.push({ resolve, reject }));
    },
    take: () => settle((write) => write.resolve()),
    fail: (code) =>
      settle((write) => write.reject(Object.assign(new Error(`${code}: failed`), { code }))),
  };
}

const report = (dropped: number, reason: string) => `dropped ${dropped} (${reason})\n`;

describe("LogSink", () => {
  it("keeps one write in flight and joins what arrives meanwhile into the next", async () => {
    const stream = heldStream();
    const sink = new LogSink(stream, report);
    sink.write("a\n", 1);
    sink.write("b\n", 1);
    sink.write("c\n", 1);
    assert.deepEqual(stream.writes, ["a\n"]);
    await stream.take();
    assert.deepEqual(stream.writes, ["a\n", "b\nc\n"]);
    await stream.take();
    await sink.idle();
    assert.equal(sink.droppedLines, 0);
  });

  it("drops lines that would make more than MAX_WAITING_CHARS wait, and counts them", async () => {
    const stream = heldStream();
    const sink = new LogSink(stream, report);
    const chunk = "x".repeat(1024 * 1024 - 1) + "\n";
    const fits = MAX_WAITING_CHARS / chunk.length;
    for (let i = 0; i < fits + 3; i++) sink.write(chunk, 1);
    assert.equal(sink.droppedLines, 3);
    // The one in flight and the queue held exactly the bound; the report comes first.
    await stream.take();
    const reported = report(3, "stdout was not read fast enough");
    assert.ok(stream.writes[1].startsWith(reported));
    assert.equal(stream.writes[1].length, reported.length + (fits - 1) * chunk.length);
  });

  it("drops a failed write's lines, tries the next lines, and reports the drops once after a success", async () => {
    const stream = heldStream();
    const sink = new LogSink(stream, report);
    sink.write("a\nb\n", 2);
    sink.write("c\n", 1);
    await stream.fail("ENOSPC"); // a, b
    assert.deepEqual(stream.writes, ["a\nb\n", "c\n"]);
    sink.write("d\n", 1);
    await stream.fail("ENOSPC"); // c
    assert.equal(sink.droppedLines, 3);
    await stream.take(); // d: the disk has room again
    assert.equal(stream.writes.at(-1), "dropped 3 (stdout failed: ENOSPC)\n");
    sink.write("e\n", 1);
    await stream.take(); // the report
    await stream.take(); // e
    assert.equal(stream.writes.filter((text) => text.startsWith("dropped")).length, 1);
    assert.equal(sink.droppedLines, 3);
  });

  it("carries the count of a report that is lost in turn into the next report", async () => {
    const stream = heldStream();
    const sink = new LogSink(stream, report);
    sink.write("a\n", 1);
    await stream.fail("EPIPE");
    sink.write("b\n", 1);
    await stream.take(); // b: the report of a's drop follows
    assert.equal(stream.writes.at(-1), "dropped 1 (stdout failed: EPIPE)\n");
    await stream.fail("EPIPE"); // the report itself
    sink.write("c\n", 1);
    await stream.take(); // c
    // a, and the lost report line.
    assert.equal(stream.writes.at(-1), "dropped 2 (stdout failed: EPIPE)\n");
    assert.equal(sink.droppedLines, 2);
  });

  it("names a reader that falls behind as the reason", async () => {
    const stream = heldStream();
    const sink = new LogSink(stream, report);
    sink.write("x".repeat(MAX_WAITING_CHARS), 1);
    sink.write("late\n", 1);
    await stream.take();
    assert.equal(stream.writes.at(-1), "dropped 1 (stdout was not read fast enough)\n");
  });
});
