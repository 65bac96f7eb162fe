import assert from "node:assert/strict";
import { appendFileSync, readFileSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { backupDataFile } from "../../src/tools/backup.ts";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import { backupOf, line, removeTempDirs, tempDir } from "../store/helpers.ts";

const decoder = new TextDecoder();

async function backup(dataDir: string, beforeRecheck?: () => Promise<void>) {
  let out = "";
  const result = await backupDataFile({
    dataDir,
    settleMs: 0,
    beforeRecheck,
    sink: (bytes) => {
      out += decoder.decode(bytes, { stream: true });
      return Promise.resolve();
    },
  });
  return { result, out };
}

describe("backupDataFile()", () => {
  after(removeTempDirs);

  it("backupDataFile() copies the complete lines and leaves out a line being written", async () => {
    const sound = line(1) + line(2, { status: "pending" });
    const root = tempDir({ "data/pets.jsonl": sound + line(3).slice(0, 20) });
    const { result, out } = await backup(join(root, "data"));
    assert.equal(out, backupOf(sound));
    assert.equal(result.ok && result.pets, 2);
    assert.deepEqual(result.ok && result.byStatus, { available: 0, pending: 1, sold: 0, none: 1 });
  });

  it("backupDataFile() copies a live store's file without its lock, and lines appended later are left out", async () => {
    const root = tempDir();
    const store = await openJsonlStore({ dataDir: root });
    try {
      await store.create({ name: "Rex", categoryId: 1n });
      const { result, out } = await backup(root, async () => {
        // Created after the copy's start: not part of this backup.
        await store.create({ name: "Later", categoryId: 2n });
      });
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.equal(out, backupOf(line(1, { name: "Rex", categoryId: 1n })));
    } finally {
      await store.close();
    }
  });

  it("backupDataFile() refuses a copy whose lines the writer cut back and rewrote", async () => {
    const root = tempDir({ "data/pets.jsonl": line(1) + line(2) + line(3) });
    const path = join(root, "data/pets.jsonl");
    const { result } = await backup(join(root, "data"), () => {
      // What writer.ts does after a failed batch (ids 2–3): cut back, then the next batch's ids.
      truncateSync(path, line(1).length);
      appendFileSync(path, line(4) + line(5));
      return Promise.resolve();
    });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.changed, true);
  });

  it("backupDataFile() refuses a copy whose last lines were cut back", async () => {
    const root = tempDir({ "data/pets.jsonl": line(1) + line(2) });
    const path = join(root, "data/pets.jsonl");
    const { result } = await backup(join(root, "data"), () => {
      truncateSync(path, line(1).length);
      return Promise.resolve();
    });
    assert.equal(!result.ok && result.changed, true);
  });

  it("backupDataFile() writes no check line for a copy it refuses, so restore refuses it too", async () => {
    const root = tempDir({ "data/pets.jsonl": line(1) + line(2) });
    const path = join(root, "data/pets.jsonl");
    const { result, out } = await backup(join(root, "data"), () => {
      truncateSync(path, line(1).length);
      return Promise.resolve();
    });
    assert.equal(result.ok, false);
    assert.equal(out, backupOf(line(1) + line(2)).split("\n").slice(0, -2).join("\n") + "\n");
  });

  it("backupDataFile() copies a backup copied into place as its pets, under a check of its own", async () => {
    const pets = line(1) + line(2);
    const root = tempDir({ "data/pets.jsonl": backupOf(pets) + line(3) });
    const { result, out } = await backup(join(root, "data"));
    assert.equal(result.ok && result.pets, 3);
    assert.equal(out, backupOf(pets + line(3)));
  });

  it("backupDataFile() names a damaged line of the data file", async () => {
    const root = tempDir({ "data/pets.jsonl": line(1) + "{}\n" });
    const { result } = await backup(join(root, "data"));
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.reason : "", /pets\.jsonl line 2 /);
    assert.equal(!result.ok && result.changed, false);
  });

  it("backupDataFile() refuses a directory without a data file, naming it", async () => {
    const root = tempDir();
    const { result, out } = await backup(root);
    assert.equal(out, "");
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.reason : "", new RegExp(`data directory ${root} holds no`));
  });

  it("backupDataFile() of an empty data file is an empty backup, with its check", async () => {
    const root = tempDir({ "data/pets.jsonl": "" });
    const { result, out } = await backup(join(root, "data"));
    assert.equal(out, backupOf(""));
    assert.equal(result.ok && result.pets, 0);
  });

  it("backupDataFile() never changes the data file", async () => {
    const content = line(1) + line(2) + "torn";
    const root = tempDir({ "data/pets.jsonl": content });
    await backup(join(root, "data"));
    assert.equal(readFileSync(join(root, "data/pets.jsonl"), "utf8"), content);
  });
});
