import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setImmediate } from "node:timers";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import { nodeFileLayer } from "../../src/store/jsonl/file_layer.ts";
import { MAX_WAIT_MS, WAIT_SHARE_OF_COMMIT } from "../../src/store/group_commit.ts";
import { GroupWriter, type WriterBatch } from "../../src/store/jsonl/writer.ts";
import type { CreateOutcome } from "../../src/store/store.ts";
import {
  deferred,
  errno,
  instrumentedFiles,
  listPets,
  removeTempDirs,
  statusOf,
  tempDir,
} from "./helpers.ts";

after(removeTempDirs);

function idOf(outcome: CreateOutcome): number {
  assert.equal(outcome.kind, "created", JSON.stringify(outcome));
  return outcome.kind === "created" ? outcome.pet.id : 0;
}

function fileIds(dataDir: string): number[] {
  const text = readFileSync(join(dataDir, "pets.jsonl"), "utf8");
  assert.ok(text === "" || text.endsWith("\n"), "the file ends on a complete line");
  return text.split("\n").filter(Boolean).map((line) => JSON.parse(line).pet.id);
}

/**
 * Lets 50 ms of timers and I/O pass, in ten turns of the event loop, before a check that
 * something has not happened yet: long enough for a wrongly started write, sync or close to
 * show, and the check holds however slow the machine is when the code is right.
 */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Fails instead of hanging when `promise` does not settle within two seconds. */
async function within(promise: Promise<void>, what: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within 2 s`)), 2000);
  });
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A data file whose fdatasync fails with EIO while `failing` is set, and whose cut-back (the
 * truncate after it) waits for `releaseTruncate` and then works, or fails too with `truncateFails`.
 */
function failingDisk(options: { truncateFails: boolean }) {
  const truncateEntered = deferred();
  const releaseTruncate = deferred();
  const disk = {
    failing: false,
    truncateEntered,
    releaseTruncate,
    files: instrumentedFiles({
      datasync: () => {
        if (disk.failing) throw errno("EIO", "fdatasync");
      },
      truncate: async () => {
        if (!disk.failing) return;
        truncateEntered.resolve();
        await releaseTruncate.promise;
        if (options.truncateFails) throw errno("EIO", "ftruncate");
      },
    }),
  };
  return disk;
}

/** A line for the writer, and how to tell its caller it is durable. */
interface Line {
  readonly text: string;
  readonly answer: () => void;
}

/**
 * A GroupWriter of bare lines over a real data file whose fdatasync takes `syncMs` more (a slow
 * disk), recording each batch's size and when its write started and it was answered.
 */
async function slowDiskWriter(syncMs: number) {
  const dataDir = tempDir({ "data/pets.jsonl": "" });
  const writeStarted: number[] = [];
  const files = instrumentedFiles({
    write: () => {
      writeStarted.push(performance.now());
    },
    datasync: () => new Promise((resolve) => setTimeout(resolve, syncMs)),
  });
  const file = await files.open(join(dataDir, "data/pets.jsonl"), "r+");
  const batches: { size: number; answeredAt: number }[] = [];
  const writer = new GroupWriter<Line, WriterBatch<Line>>({
    file,
    fileLength: 0,
    encode: (entries) => ({
      entries,
      bytes: new TextEncoder().encode(entries.map((entry) => entry.text).join("")),
    }),
    onWarning: () => {},
    onHalted: () => {},
    onDurable: (batch) => {
      batches.push({ size: batch.entries.length, answeredAt: performance.now() });
      for (const entry of batch.entries) entry.answer();
    },
    onFailed: () => assert.fail("no batch fails"),
  });
  const append = (text: string) =>
    new Promise<void>((answer) => writer.append({ text: `${text}\n`, answer }));
  return { writer, file, batches, writeStarted, append };
}

/** Resolves once the data file's first write has started. */
async function firstWrite(writeStarted: readonly number[]): Promise<void> {
  while (writeStarted.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe("GroupWriter", () => {
  it("writes 200 concurrent creates in file order with fewer fdatasyncs than creates", async () => {
    const dataDir = join(tempDir(), "data");
    const files = instrumentedFiles();
    const store = await openJsonlStore({ dataDir, files });
    const outcomes = await Promise.all(
      Array.from(
        { length: 200 },
        (_, i) => store.create({ name: `Pet ${i}`, categoryId: BigInt(i) }),
      ),
    );
    const ids = outcomes.map(idOf);
    assert.deepEqual(
      ids,
      Array.from({ length: 200 }, (_, i) => i + 1),
      "ids follow the order of the calls",
    );
    assert.deepEqual(fileIds(dataDir), ids, "and the order of the file");
    assert.ok(files.datasyncs < 200, `${files.datasyncs} fdatasyncs`);
    assert.equal(files.writes, files.datasyncs, "one write and one fdatasync per batch");
    const lines = readFileSync(join(dataDir, "pets.jsonl"), "utf8").split("\n");
    assert.equal(JSON.parse(lines[41]).pet.name, "Pet 41");
    await store.close();
  });

  it("does not show a batch to readers before its fdatasync returns", async () => {
    const dataDir = join(tempDir(), "data");
    const entered = deferred();
    const gate = deferred();
    const files = instrumentedFiles({
      datasync: async () => {
        entered.resolve();
        await gate.promise;
      },
    });
    const store = await openJsonlStore({ dataDir, files });
    let answered = false;
    const creating = store.create({ name: "Slow", categoryId: 1n, status: "sold" }).then(
      (outcome) => {
        answered = true;
        return outcome;
      },
    );
    await entered.promise;
    assert.equal(
      readFileSync(join(dataDir, "pets.jsonl"), "utf8").length > 0,
      true,
      "the bytes are written",
    );
    assert.equal(store.get(1), undefined);
    assert.deepEqual((await listPets(store, { status: "sold", afterId: 0, limit: 10 })).pets, []);
    assert.equal(store.size, 0);
    assert.equal(answered, false);
    gate.resolve();
    assert.equal(idOf(await creating), 1);
    assert.equal(statusOf(store.get(1)), "sold");
    await store.close();
  });

  it("starts the next batch only once the current one is synced, and answers them in order", async () => {
    const dataDir = join(tempDir(), "data");
    const firstSyncEntered = deferred();
    const releaseFirstSync = deferred();
    let syncs = 0;
    const files = instrumentedFiles({
      datasync: async () => {
        if (++syncs === 1) {
          firstSyncEntered.resolve();
          await releaseFirstSync.promise;
        }
      },
    });
    const store = await openJsonlStore({ dataDir, files });
    const answered: number[] = [];
    const first = store.create({ name: "First", categoryId: 1n }).then((outcome) => {
      answered.push(idOf(outcome));
    });
    await firstSyncEntered.promise;
    const queued = ["Second", "Third"].map((name) =>
      store.create({ name, categoryId: 2n, status: "sold" }).then((outcome) => {
        answered.push(idOf(outcome));
      })
    );
    await settle();
    assert.equal(files.writes, 1, "nothing else is written while the first batch syncs");
    assert.deepEqual(answered, []);
    releaseFirstSync.resolve();
    await Promise.all([first, ...queued]);
    assert.deepEqual(answered, [1, 2, 3], "answered in id order");
    assert.equal(files.writes, 2, "the creates that queued meanwhile went out as one batch");
    assert.equal(statusOf(store.get(3)), "sold");
    await store.close();
    assert.deepEqual(fileIds(dataDir), [1, 2, 3]);
  });

  const turnTakers = [
    { groups: [1, 63], disk: "a slow disk", syncMs: 100 },
    { groups: [32, 32], disk: "a slow disk", syncMs: 100 },
    // A quarter of such a sync is shorter than a timer: the wait is made for five or more.
    { groups: [4, 4], disk: "a fast disk", syncMs: 0 },
  ];
  for (const { groups, disk, syncMs } of turnTakers) {
    it(`merges clients that take turns on ${disk} into one batch per fdatasync (groups of ${groups.join(" and ")})`, async () => {
      // Each client sends its next line once its last one is answered, a turn of the event loop
      // later (its round trip). The second group starts while the first one's batch syncs, so
      // without the wait for the answered callers the two groups would take turns for good.
      const BATCHES = 7;
      const clients = groups[0] + groups[1];
      const { writer, file, batches, writeStarted, append } = await slowDiskWriter(syncMs);
      const client = async (name: string) => {
        while (batches.length < BATCHES) {
          await append(name);
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      const first = Array.from({ length: groups[0] }, (_, i) => client(`a${i}`));
      await within(firstWrite(writeStarted), "the first batch's write");
      const second = Array.from({ length: groups[1] }, (_, i) => client(`b${i}`));
      await Promise.all([...first, ...second]);
      await writer.idle();
      await file.close();
      const sizes = batches.map((batch) => batch.size);
      assert.equal(sizes[0], groups[0], "the first group's batch");
      const later = sizes.slice(1, BATCHES);
      const mean = later.reduce((sum, size) => sum + size, 0) / later.length;
      assert.ok(
        mean >= 0.8 * clients,
        `batches ${sizes.join(", ")}: after the first, each should hold all ${clients} clients`,
      );
    });
  }

  /**
   * A batch of three whose callers never come back, and one create queued behind it, on a disk
   * whose fdatasync takes `syncMs`: how long after the first batch was answered the lone create's
   * batch started.
   */
  async function loneCreateWait(syncMs: number): Promise<number> {
    const { writer, file, batches, writeStarted, append } = await slowDiskWriter(syncMs);
    const three = ["one", "two", "three"].map(append);
    await within(firstWrite(writeStarted), "the first batch's write");
    const alone = append("alone");
    await within(Promise.all(three).then(() => {}), "the first batch's answer");
    await within(alone, "the lone create's answer");
    await writer.idle();
    await file.close();
    assert.deepEqual(batches.map((batch) => batch.size), [3, 1]);
    return writeStarted[1] - batches[0].answeredAt;
  }

  it("lets a create with no company wait at most a quarter of the last fdatasync, on a slow disk", async () => {
    const SYNC_MS = 200;
    const waited = await loneCreateWait(SYNC_MS);
    assert.ok(
      // Well short of another whole sync, with room for a busy machine's late timer.
      waited < SYNC_MS * 0.75,
      `the lone create's batch started ${
        waited.toFixed(1)
      } ms after the first was answered (the wait is at most ${SYNC_MS * WAIT_SHARE_OF_COMMIT} ms)`,
    );
  });

  it("passes no share of a stalled disk's fdatasync on to the next batch (the wait stops at its maximum)", async () => {
    // A quarter of this sync would be 300 ms.
    const waited = await loneCreateWait(1_200);
    assert.ok(
      waited < MAX_WAIT_MS + 150,
      `the lone create's batch started ${waited.toFixed(1)} ms after the first was answered`,
    );
  });

  it("idle() called while a batch syncs resolves once it is answered, without waiting for its callers", async () => {
    // A close during a commit: a quarter of this sync would be a 100 ms wait for callers who, the
    // service being about to stop, never come back.
    const { writer, file, writeStarted, append } = await slowDiskWriter(600);
    const three = ["one", "two", "three"].map(append);
    await within(firstWrite(writeStarted), "the first batch's write");
    const idle = writer.idle().then(() => "idle");
    await within(Promise.all(three).then(() => {}), "the batch's answer");
    // Nothing is left to do but the callbacks of the answer (microtasks): any timer comes later.
    const late = new Promise((resolve) => setTimeout(() => resolve("a timer later"), 20));
    assert.equal(await Promise.race([idle, late]), "idle");
    await file.close();
  });

  it("cuts the file back before answering a failed batch, then writes the creates queued behind it", async () => {
    const dataDir = join(tempDir(), "data");
    let failFirstSync = false;
    const firstSyncEntered = deferred();
    const releaseFirstSync = deferred();
    let syncs = 0;
    const files = instrumentedFiles({
      datasync: async () => {
        if (!failFirstSync) return;
        if (++syncs === 1) {
          firstSyncEntered.resolve();
          await releaseFirstSync.promise;
          throw errno("EIO", "fdatasync");
        }
      },
    });
    const store = await openJsonlStore({ dataDir, files });
    idOf(await store.create({ name: "Kept", categoryId: 1n }));
    const before = readFileSync(join(dataDir, "pets.jsonl"), "utf8");

    failFirstSync = true;
    const path = join(dataDir, "pets.jsonl");
    let fileWhenRefused = "";
    const first = store.create({ name: "Lost", categoryId: 2n }).then((outcome) => {
      fileWhenRefused = readFileSync(path, "utf8");
      return outcome;
    });
    await firstSyncEntered.promise;
    const behind = store.create({ name: "Behind", categoryId: 3n });
    releaseFirstSync.resolve();
    const refused = await first;
    assert.equal(refused.kind, "unavailable");
    assert.match(refused.kind === "unavailable" ? refused.reason : "", /EIO/);
    assert.equal(fileWhenRefused, before, "cut back before the failed batch was answered");

    const id = idOf(await behind);
    assert.ok(id > 2, `id ${id} skips the failed batch's`);
    assert.equal(store.size, 2);
    await store.close();
    assert.deepEqual(fileIds(dataDir), [1, id]);
  });

  for (const failing of ["write", "datasync"] as const) {
    it(`answers every caller of a batch unavailable when ${failing} fails (ENOSPC), then recovers`, async () => {
      const dataDir = join(tempDir(), "data");
      let fail = false;
      const files = instrumentedFiles({
        write: async (file, bytes, offset, length, position) => {
          if (fail && failing === "write") {
            // A partial write: half the batch reaches the file before the disk is full.
            await file.write(bytes, offset, Math.floor(length / 2), position);
            throw errno("ENOSPC", "write");
          }
        },
        datasync: () => {
          // Once: the cut-back's own fdatasync works (when it fails too, the store halts).
          if (fail && failing === "datasync" && !syncFailed) {
            syncFailed = true;
            throw errno("EIO", "fdatasync");
          }
        },
      });
      let syncFailed = false;
      const store = await openJsonlStore({ dataDir, files });
      const first = await Promise.all(
        [1, 2, 3].map((i) => store.create({ name: `Ok ${i}`, categoryId: 1n })),
      );
      const handedOut = new Set(first.map(idOf));
      const before = readFileSync(join(dataDir, "pets.jsonl"), "utf8");

      fail = true;
      const failed = await Promise.all(
        [1, 2, 3, 4].map((i) => store.create({ name: `Lost ${i}`, categoryId: 2n })),
      );
      for (const outcome of failed) {
        assert.equal(outcome.kind, "unavailable");
        assert.match(
          outcome.kind === "unavailable" ? outcome.reason : "",
          failing === "write" ? /ENOSPC/ : /EIO/,
        );
      }
      assert.equal(
        readFileSync(join(dataDir, "pets.jsonl"), "utf8"),
        before,
        "cut back to the last good line",
      );
      assert.equal(store.size, 3);

      fail = false;
      const later = await Promise.all(
        [1, 2].map((i) => store.create({ name: `Later ${i}`, categoryId: 3n })),
      );
      for (const id of later.map(idOf)) {
        assert.ok(!handedOut.has(id), `id ${id} reused`);
        assert.ok(id > 3 + 4, `id ${id} skips the failed batch`);
        handedOut.add(id);
      }
      await store.close();

      const reopened = await openJsonlStore({ dataDir });
      assert.equal(reopened.size, 5);
      assert.deepEqual(fileIds(dataDir), [...handedOut]);
      await reopened.close();
    });
  }

  it("close() waits for the cut-back after a failed batch before closing the file", async () => {
    const dataDir = join(tempDir(), "data");
    const disk = failingDisk({ truncateFails: false });
    const store = await openJsonlStore({ dataDir, files: disk.files });
    idOf(await store.create({ name: "Kept", categoryId: 1n }));
    const before = readFileSync(join(dataDir, "pets.jsonl"), "utf8");
    disk.failing = true;
    const lost = store.create({ name: "Lost", categoryId: 2n });
    const { truncateEntered, releaseTruncate } = disk;
    await within(truncateEntered.promise, "the cut-back");
    let closed = false;
    const closing = store.close().then(() => {
      closed = true;
    });
    await settle();
    assert.equal(closed, false, "close() waits for the truncate");
    releaseTruncate.resolve();
    assert.equal((await lost).kind, "unavailable");
    await closing;
    assert.equal(readFileSync(join(dataDir, "pets.jsonl"), "utf8"), before);
  });

  it("refuses, writing nothing, the creates queued behind a batch whose cut-back failed", async () => {
    const dataDir = join(tempDir(), "data");
    const disk = failingDisk({ truncateFails: true });
    const { files, truncateEntered, releaseTruncate } = disk;
    const store = await openJsonlStore({ dataDir, files, onError: () => {} });
    disk.failing = true;
    const unknown = store.create({ name: "Maybe", categoryId: 1n });
    await truncateEntered.promise;
    // Accepted by the store (the writer has not halted yet) and queued behind the failing batch.
    const queued = store.create({ name: "Queued", categoryId: 2n });
    const writes = files.writes;
    releaseTruncate.resolve();
    const [first, second] = await Promise.all([unknown, queued]);
    assert.ok(first.kind === "unavailable" && first.outcomeUnknown, JSON.stringify(first));
    assert.ok(second.kind === "unavailable" && !second.outcomeUnknown, JSON.stringify(second));
    assert.equal(files.writes, writes, "nothing of the queued create was written");
    disk.failing = false;
    await store.close();
  });

  it("halts when a batch's publication throws after its fdatasync (a bug): the outcome is unknown", async () => {
    const dataDir = tempDir({ "data/pets.jsonl": "" });
    const file = await nodeFileLayer.open(join(dataDir, "data/pets.jsonl"), "r+");
    const failed: { entries: readonly string[]; outcomeUnknown: boolean }[] = [];
    const halted: string[] = [];
    const writer = new GroupWriter<string, WriterBatch<string>>({
      file,
      fileLength: 0,
      encode: (entries) => ({ entries, bytes: new TextEncoder().encode(entries.join("")) }),
      onWarning: () => {},
      onHalted: (reason) => halted.push(reason),
      onDurable: () => {
        throw new TypeError("a bug in publishing");
      },
      onFailed: (entries, _reason, outcomeUnknown) => failed.push({ entries, outcomeUnknown }),
    });
    writer.append("a\n");
    await writer.idle();
    assert.deepEqual(failed, [{ entries: ["a\n"], outcomeUnknown: true }]);
    assert.equal(halted.length, 1);
    assert.match(writer.halted ?? "", /internal store error: a bug in publishing/);
    writer.append("b\n");
    await writer.idle();
    assert.deepEqual(failed[1], { entries: ["b\n"], outcomeUnknown: false });
    await file.close();
    assert.equal(
      readFileSync(join(dataDir, "data/pets.jsonl"), "utf8"),
      "a\n",
      "b was not written",
    );
  });

  it("halts when the cut-back fails: the batch's callers learn the outcome is unknown, later creates are refused, and a restart keeps each pet whole or absent", async () => {
    const dataDir = join(tempDir(), "data");
    let failSync = false;
    let failTruncate = false;
    const errors: string[] = [];
    const files = instrumentedFiles({
      datasync: () => {
        if (failSync) throw errno("EIO", "fdatasync");
      },
      truncate: () => {
        if (failTruncate) throw errno("EIO", "ftruncate");
      },
    });
    const store = await openJsonlStore({ dataDir, files, onError: (m) => errors.push(m) });
    idOf(await store.create({ name: "Ok", categoryId: 1n }));
    failSync = true;
    failTruncate = true;
    const claim = { scope: "scope1", key: "order-1", digest: "d".repeat(64) };
    const unknown = await store.create({ name: "Maybe", categoryId: 2n }, claim);
    assert.equal(unknown.kind, "unavailable");
    assert.equal(unknown.kind === "unavailable" && unknown.outcomeUnknown, "data_file_failed");
    assert.equal(store.isAvailable(), false);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /no creates until the service is restarted.*EIO.*pets\.jsonl/);

    // The disk is back, but the writer does not trust the file any more: nothing more is written.
    failSync = false;
    failTruncate = false;
    const writes = files.writes;
    const refused = await store.create({ name: "Refused", categoryId: 3n });
    assert.equal(refused.kind, "unavailable");
    assert.ok(refused.kind === "unavailable" && !refused.outcomeUnknown);
    assert.equal(files.writes, writes, "a halted store writes nothing");
    await store.close();

    // The line reached the file (only its fdatasync "failed"): the restart keeps it whole, and a
    // retry with its key returns it once.
    const reopened = await openJsonlStore({ dataDir });
    const replay = await reopened.create({ name: "Maybe", categoryId: 2n }, claim);
    assert.equal(replay.kind, "replayed");
    assert.equal(replay.kind === "replayed" && replay.pet.id, 2);
    assert.equal(reopened.size, 2);
    await reopened.close();
  });
});
