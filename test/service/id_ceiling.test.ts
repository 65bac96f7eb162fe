/**
 * No 201 for what cannot be read back, on the runtime under test (TARGET_RUNTIME): ids stop at
 * 2^53 − 1, the highest the data file's format reads. A service whose file reaches it answers a
 * create 503 `unavailable` saying the id space is exhausted, writes nothing, keeps serving reads,
 * and starts again; `verify` warns before it gets there.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  runService,
  startService,
  targetRuntime,
  temporaryDirectory,
} from "../support/server_process.ts";
import { serviceApi } from "../support/service_api.ts";
import { line } from "../store/helpers.ts";

const runtime = targetRuntime();
const KEY = "ceiling-suite-key";
const api = serviceApi(KEY);
const LAST_ID = 9007199254740991;

describe(`the id ceiling on ${runtime}`, { timeout: 60_000 }, () => {
  const dir = temporaryDirectory("animal-store-ceiling-");
  after(() => dir.remove());

  it("the last id is given once; the next create is 503 id space exhausted, nothing written, and a restart serves every pet", async () => {
    const dataDir = join(dir.path, "data");
    mkdirSync(dataDir);
    const path = join(dataDir, "pets.jsonl");
    writeFileSync(path, line(LAST_ID - 1));
    let service = await startService({ dataDir, env: { API_KEYS: KEY } });
    try {
      const create = (name: string, key?: string) =>
        api(service, "/v1/pets", {
          method: "POST",
          body: JSON.stringify({ name, categoryId: 1 }),
          headers: key === undefined ? {} : { "idempotency-key": key },
        });
      const last = await create("Last", "the-last");
      assert.equal(last.status, 201);
      assert.equal((await last.json()).id, LAST_ID);
      const full = readFileSync(path, "utf8");

      const refused = await create("One too many");
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get("retry-after"), null, "no retry will help");
      const { requestId: _, ...error } = await refused.json();
      assert.deepEqual(error, {
        code: "unavailable",
        status: 503,
        message:
          "The pet could not be stored: the id space is exhausted (ids stop at 9007199254740991); nothing was saved",
      });
      assert.equal(readFileSync(path, "utf8"), full, "nothing written");
      const replay = await create("Last", "the-last");
      assert.equal(replay.status, 201, "a retry of the last pet still replays it");
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.equal((await api(service, `/v1/pets/${LAST_ID}`)).status, 200, "reads go on");
      assert.equal((await api(service, "/readyz")).status, 200);
    } finally {
      assert.equal(await service.stop(), 0);
    }

    service = await startService({ dataDir, env: { API_KEYS: KEY } });
    try {
      const pets = await (await api(service, "/v1/pets")).json();
      assert.deepEqual(pets.map((pet: { id: number }) => pet.id), [LAST_ID - 1, LAST_ID]);
      const again = await api(service, "/v1/pets", {
        method: "POST",
        body: JSON.stringify({ name: "After the restart", categoryId: 1 }),
      });
      assert.equal(again.status, 503);
    } finally {
      assert.equal(await service.stop(), 0);
    }

    const verify = await runService(["verify"], { env: { DATA_DIR: dataDir } });
    assert.equal(verify.code, 0, verify.stderr);
    assert.match(
      verify.stdout,
      /\nwarning: the highest id is 9007199254740991; 0 ids are left before ids stop at 9007199254740991, and then every create is refused \(503 unavailable\)\nok: the file is sound\n$/,
    );
  });
});
