import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import type { IdempotencyClaim } from "../../src/store/store.ts";
import { errno, instrumentedFiles, removeTempDirs, tempDir } from "./helpers.ts";

after(removeTempDirs);

const claim: IdempotencyClaim = { scope: "key-fp-1", key: "order-42", digest: "aaa" };
const pet = { name: "Rex", categoryId: 9007199254740993n, status: "available" as const };

describe("JsonlStore idempotency keys", () => {
  it("replays the same pet for the same key and body, without a second record", async () => {
    const dataDir = join(tempDir(), "data");
    const store = await openJsonlStore({ dataDir });
    const first = await store.create(pet, claim);
    assert.equal(first.kind, "created");
    const again = await store.create(pet, claim);
    assert.deepEqual(again, {
      kind: "replayed",
      pet: first.kind === "created" ? first.pet : undefined,
    });
    assert.equal(store.size, 1);
    await store.close();
    assert.equal(readFileSync(join(dataDir, "pets.jsonl"), "utf8").split("\n").length, 2);
  });

  it("answers key_reused for the same key with another body", async () => {
    const store = await openJsonlStore({ dataDir: join(tempDir(), "data") });
    await store.create(pet, claim);
    assert.deepEqual(await store.create(pet, { ...claim, digest: "bbb" }), { kind: "key_reused" });
    await store.close();
  });

  it("answers key_in_flight while the first create with the key is being written", async () => {
    const store = await openJsonlStore({ dataDir: join(tempDir(), "data") });
    const outcomes = await Promise.all([
      store.create(pet, claim),
      store.create(pet, claim),
      store.create(pet, claim),
    ]);
    assert.deepEqual(outcomes.map((o) => o.kind), ["created", "key_in_flight", "key_in_flight"]);
    assert.equal(store.size, 1);
    await store.close();
  });

  it("keeps keys per scope", async () => {
    const store = await openJsonlStore({ dataDir: join(tempDir(), "data") });
    assert.equal((await store.create(pet, claim)).kind, "created");
    assert.equal((await store.create(pet, { ...claim, scope: "key-fp-2" })).kind, "created");
    await store.close();
  });

  it("finds keys again after a close and reopen", async () => {
    const dataDir = join(tempDir(), "data");
    let store = await openJsonlStore({ dataDir });
    const first = await store.create(pet, claim);
    await store.create({ name: "Other", categoryId: 1n });
    await store.close();
    store = await openJsonlStore({ dataDir });
    const again = await store.create(pet, claim);
    assert.equal(again.kind, "replayed");
    assert.deepEqual(again.kind === "replayed" && again.pet, first.kind === "created" && first.pet);
    assert.deepEqual(await store.create(pet, { ...claim, digest: "bbb" }), { kind: "key_reused" });
    await store.close();
  });

  it("frees a key whose batch failed, so the retry creates the pet", async () => {
    let fail = true;
    const files = instrumentedFiles({
      datasync: () => {
        if (fail) {
          fail = false; // the batch's fdatasync fails; the cut-back's works
          throw errno("ENOSPC", "fdatasync");
        }
      },
    });
    const store = await openJsonlStore({ dataDir: join(tempDir(), "data"), files });
    assert.equal((await store.create(pet, claim)).kind, "unavailable");
    assert.equal((await store.create(pet, claim)).kind, "created");
    assert.equal((await store.create(pet, claim)).kind, "replayed");
    await store.close();
  });
});
