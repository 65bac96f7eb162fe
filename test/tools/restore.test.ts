import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import { copyWarnings } from "../../src/tools/report.ts";
import { restoreDataFile } from "../../src/tools/restore.ts";
import { byteSource, line, removeTempDirs, tempDir } from "../store/helpers.ts";

const claim = { scope: "k1", key: "retry-7", digest: "d".repeat(64) };
const backup = line(1) + line(4, { status: "sold" }, claim) + line(9, { status: "available" });

describe("restoreDataFile()", () => {
  after(removeTempDirs);

  it("restoreDataFile() installs the backup in a new directory; the store continues after its ids", async () => {
    const dataDir = join(tempDir(), "new/data");
    const result = await restoreDataFile({ dataDir, source: byteSource(backup), name: "b" });
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(readFileSync(join(dataDir, "pets.jsonl"), "utf8"), backup);
    assert.deepEqual(readdirSync(dataDir), ["pets.jsonl"], "no temporary file or lock is left");
    const store = await openJsonlStore({ dataDir });
    try {
      assert.equal(store.get(4)?.json, '{"id":4,"name":"Pet 4","categoryId":4,"status":"sold"}');
      const replay = await store.create({ name: "Pet 4", categoryId: 4n, status: "sold" }, claim);
      assert.equal(replay.kind, "replayed");
      const created = await store.create({ name: "New", categoryId: 1n });
      assert.equal(created.kind === "created" && created.pet.id, 10);
    } finally {
      await store.close();
    }
  });

  it("restoreDataFile() leaves out a torn last line", async () => {
    const dataDir = tempDir();
    const result = await restoreDataFile({
      dataDir,
      source: byteSource(backup + '{"type":"pet"'),
      name: "b",
    });
    assert.equal(result.ok && result.tornTail?.length, 13);
    assert.equal(readFileSync(join(dataDir, "pets.jsonl"), "utf8"), backup);
  });

  it("a copy's warnings name the torn line's offset, the record kept without its newline and a missing check line", async () => {
    const torn = await restoreDataFile({
      dataDir: tempDir(),
      source: byteSource(backup + '{"type":"pet"'),
      name: "b",
    });
    assert.ok(torn.ok);
    assert.deepEqual(copyWarnings("b", torn, true), [
      `left out the torn last line of b (byte offset ${backup.length}): 13 bytes without a newline`,
      "b has no check line (a backup taken by an earlier version?): every line was judged, but a backup cut short at a line boundary cannot be told from a whole one",
    ]);
    const unended = await restoreDataFile({
      dataDir: tempDir(),
      source: byteSource(backup.slice(0, -1)),
      name: "b",
    });
    assert.ok(unended.ok);
    assert.deepEqual(copyWarnings("b", unended, false), [
      "the last record of b (line 3) lacks its newline; it is kept",
    ]);
  });

  it("restoreDataFile() refuses a damaged backup, names the line and installs nothing", async () => {
    const dataDir = tempDir();
    const result = await restoreDataFile({
      dataDir,
      source: byteSource(line(1) + line(1)),
      name: "nightly.jsonl",
    });
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.reason : "", /^nightly\.jsonl line 2 has id 1/);
    assert.deepEqual(readdirSync(dataDir), []);
  });

  it("restoreDataFile() refuses a directory that holds pets, naming it", async () => {
    const root = tempDir({ "data/pets.jsonl": line(1) });
    const dataDir = join(root, "data");
    const result = await restoreDataFile({ dataDir, source: byteSource(backup), name: "b" });
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.reason : "", new RegExp(`data directory ${dataDir} `));
    assert.equal(readFileSync(join(dataDir, "pets.jsonl"), "utf8"), line(1));
  });

  it("restoreDataFile() refuses a directory in use by a store, naming it", async () => {
    const dataDir = tempDir();
    const store = await openJsonlStore({ dataDir });
    try {
      const result = await restoreDataFile({ dataDir, source: byteSource(backup), name: "b" });
      assert.equal(result.ok, false);
      assert.match(!result.ok ? result.reason : "", new RegExp(`${dataDir} is in use`));
    } finally {
      await store.close();
    }
  });
});
