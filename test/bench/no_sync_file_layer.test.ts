/** The benchmark's no-sync file layer: the store over it never reaches fdatasync. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { noSyncFileLayer } from "../../scripts/bench/no_sync_file_layer.ts";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import { instrumentedFiles, removeTempDirs, tempDir } from "../store/helpers.ts";

describe("noSyncFileLayer", () => {
  after(() => removeTempDirs());

  it("skips fdatasync when fsync is off (benchmarks only)", async () => {
    const files = instrumentedFiles();
    const dataDir = join(tempDir(), "data");
    const store = await openJsonlStore({ dataDir, files: noSyncFileLayer(files) });
    const outcome = await store.create({ name: "Fast", categoryId: 1n });
    assert.equal(outcome.kind, "created");
    assert.equal(files.datasyncs, 0);
    assert.ok(files.writes > 0, "the pet was written");
    await store.close();
  });
});
