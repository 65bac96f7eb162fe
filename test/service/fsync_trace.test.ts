/**
 * Durability seen from the kernel's side: the running service is traced with Debian's `strace`,
 * and the order of its system calls must show that
 *
 * - every 201 leaves only after an fdatasync (or fsync) of the data file that started after the
 *   write of that pet's line had returned (a kill -9 test cannot see a missing sync: the page
 *   cache survives the kill);
 * - the directory is synced when the data file is created;
 * - after start-up, no request reads the data file (reads never touch the disk).
 *
 * Skipped with a notice when strace cannot be used (test/support/strace.ts); with REQUIRE_STRACE=1
 * (CI) that is a failure instead.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { DATA_FILE } from "../../src/store/jsonl/jsonl_store.ts";
import {
  startService,
  targetRuntime,
  temporaryDirectory,
  waitFor,
} from "../support/server_process.ts";
import { serviceApi } from "../support/service_api.ts";
import { stopTraced, STRACE, straceUnavailable } from "../support/strace.ts";

const KEY = "strace-suite-key";
const api = serviceApi(KEY);
const SYSCALLS = [
  "openat",
  "read",
  "pread64",
  "readv",
  "preadv",
  "preadv2",
  "write",
  "writev",
  "pwrite64",
  "pwritev",
  "pwritev2",
  "sendto",
  "sendmsg",
  "fdatasync",
  "fsync",
];

const unavailable = straceUnavailable("fsync_trace");

/** One system call of the trace: its text, and where it started and returned in the trace. */
interface Call {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/**
 * The calls of an `strace -f` trace, with the two halves of an interrupted call
 * (`<unfinished ...>` and `<... name resumed>`) joined: a call's `end` is the line where it
 * returned, which is what ordering questions ("did the sync return before the 201 left?") need.
 */
function parseTrace(trace: string): Call[] {
  const calls: Call[] = [];
  const pending = new Map<string, { text: string; start: number }>();
  const lines = trace.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const match = /^(\d+) +(.*)$/.exec(lines[index]);
    if (match === null) continue;
    const [, pid, rest] = match;
    const unfinished = /^(.*) <unfinished \.\.\.>$/.exec(rest);
    if (unfinished !== null) {
      pending.set(pid, { text: unfinished[1], start: index });
      continue;
    }
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(rest);
    if (resumed !== null) {
      const first = pending.get(pid);
      pending.delete(pid);
      if (first !== undefined) {
        calls.push({ text: first.text + resumed[1], start: first.start, end: index });
      }
      continue;
    }
    calls.push({ text: rest, start: index, end: index });
  }
  return calls;
}

describe(`system calls of the service on ${targetRuntime()} (strace)`, {
  skip: unavailable,
  timeout: 120_000,
}, () => {
  it("a 201 leaves only after a sync of the data file that followed the write of that pet's line; the directory is synced at creation; reads never touch the data file after start-up", async () => {
    const dir = temporaryDirectory();
    try {
      const dataDir = join(realpathSync(dir.path), "data");
      const dataFile = join(dataDir, DATA_FILE);
      const tracePath = join(dir.path, "trace.txt");
      const service = await startService({
        dataDir,
        env: { API_KEYS: KEY },
        wrapper: [
          STRACE!,
          "-f",
          "-y",
          "-s",
          "8192",
          "-e",
          `trace=${SYSCALLS.join(",")}`,
          "-o",
          tracePath,
        ],
      });
      let ids: number[];
      try {
        // Everything from here on is after start-up.
        const marker = await api(service, "/healthz", {
          headers: { "x-request-id": "trace-mark" },
        });
        assert.equal(marker.status, 200);
        ids = [];
        for (let round = 0; round < 3; round++) {
          const created = await Promise.all(
            Array.from({ length: 4 }, (_, i) =>
              api(service, "/v1/pets", {
                method: "POST",
                body: JSON.stringify({ name: `Traced ${round}.${i}`, categoryId: i }),
              })),
          );
          for (const response of created) {
            assert.equal(response.status, 201);
            ids.push((await response.json()).id);
          }
        }
        assert.equal((await api(service, "/v1/pets?limit=100")).status, 200);
        await (await api(service, `/v1/pets/${ids[0]}`)).arrayBuffer();
        await (await api(service, "/v1/pets?limit=2")).arrayBuffer();
      } finally {
        await stopTraced(service);
      }

      await waitFor(() => existsSync(tracePath), "the trace");
      const calls = parseTrace(readFileSync(tracePath, "utf8"));
      const onDataFile = (call: Call) => call.text.includes(`<${dataFile}>`);
      const isSync = (call: Call) => /^f(data)?sync\(/.test(call.text);
      const isWrite = (call: Call) => /^(p?write(v2?|64)?|sendto|sendmsg)\(/.test(call.text);
      const isRead = (call: Call) => /^p?read(v2?|64)?\(/.test(call.text);

      // The directory entry of the new data file is made durable before any pet is answered.
      const creation = calls.find((call) =>
        call.text.startsWith("openat(") && call.text.includes(`"${dataFile}"`) &&
        call.text.includes("O_CREAT")
      );
      assert.ok(creation !== undefined, "the data file was created");
      const directorySync = calls.find((call) =>
        isSync(call) && call.text.includes(`<${dataDir}>`) && call.start > creation.end &&
        call.text.endsWith("= 0")
      );
      assert.ok(directorySync !== undefined, `fsync of ${dataDir} after creating the data file`);

      const markerCall = calls.find((call) => isWrite(call) && call.text.includes("trace-mark"));
      assert.ok(markerCall !== undefined, "the marker request's answer is in the trace");
      for (const id of ids) {
        const lineWrite = calls.find((call) =>
          isWrite(call) && onDataFile(call) && call.text.includes(`\\"id\\":${id},`)
        );
        assert.ok(lineWrite !== undefined, `pet ${id}: its line was written to the data file`);
        const answer = calls.find((call) =>
          isWrite(call) && !onDataFile(call) && call.text.includes(`/v1/pets/${id}\\r\\n`)
        );
        assert.ok(answer !== undefined, `pet ${id}: its 201 is in the trace`);
        assert.ok(
          directorySync.end < answer.start,
          `pet ${id}: answered before the directory sync`,
        );
        const sync = calls.find((call) =>
          isSync(call) && onDataFile(call) && call.start > lineWrite.end &&
          call.end < answer.start && call.text.endsWith("= 0")
        );
        assert.ok(
          sync !== undefined,
          `pet ${id}: no sync of the data file between the write of its line (trace line ${
            lineWrite.end + 1
          }) and its 201 (trace line ${answer.start + 1})`,
        );
      }

      const reads = calls.filter((call) => isRead(call) && onDataFile(call));
      assert.ok(
        reads.some((call) => call.end < markerCall.start),
        "start-up reads the data file (the check below can see a read)",
      );
      const late = reads.filter((call) => call.start > markerCall.start);
      assert.deepEqual(late.map((call) => call.text.slice(0, 120)), [], "reads after start-up");
    } finally {
      dir.remove();
    }
  });
});
