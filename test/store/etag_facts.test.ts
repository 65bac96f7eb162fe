/**
 * The facts behind a list page's ETag (first and last id, count, whether more follow) come from
 * the store. For the same catalogue the JSON-lines and PostgreSQL stores must give the same
 * facts, and so the same tags, the same bytes, and the same again after a reopen (a restart).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { loadConfig } from "../../src/config/config.ts";
import { pageTag } from "../../src/http/conditional_get.ts";
import type { PetStatus } from "../../src/schemas/pet.ts";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import { openPostgresStore } from "../../src/store/postgres/postgres_store.ts";
import type { PageQuery } from "../../src/schemas/page.ts";
import type { PetStore } from "../../src/store/store.ts";
import { freshDatabase, skipWithoutPostgres } from "../support/postgres.ts";
import { removeTempDirs, tempDir } from "./helpers.ts";

const STATUSES: (PetStatus | undefined)[] = ["available", undefined, "sold", "pending", "sold"];

/** The same catalogue in any store: 47 pets of mixed statuses, one int64 category beyond 2^53. */
async function fill(store: PetStore): Promise<void> {
  for (let i = 1; i <= 47; i++) {
    const outcome = await store.create({
      name: `Facts ${i} ✓`,
      categoryId: i === 7 ? 9007199254740993n : BigInt(-i),
      status: STATUSES[i % STATUSES.length],
    });
    assert.equal(outcome.kind, "created");
  }
}

const QUERIES: PageQuery[] = [];
for (const status of [undefined, "available", "pending", "sold"] as const) {
  for (const limit of [1, 5, 20, 100]) {
    for (const afterId of [0, 3, 19, 40, 47, 1000]) QUERIES.push({ status, afterId, limit });
  }
}

/** Each query's tag (identity coding) and body, as the service would derive them. */
async function factsOf(store: PetStore): Promise<string[]> {
  const lines: string[] = [];
  for (const query of QUERIES) {
    const page = await store.listJson(query);
    const tag = pageTag({ ...query, ...page }, "identity");
    lines.push(`${JSON.stringify(query)} ${tag} ${new TextDecoder().decode(page.body)}`);
  }
  return lines;
}

describe("ETag facts", () => {
  after(() => removeTempDirs());

  it("the JSON-lines store gives the same facts after a reopen", async () => {
    const dataDir = join(tempDir(), "data");
    const store = await openJsonlStore({ dataDir });
    await fill(store);
    const before = await factsOf(store);
    await store.close();
    const reopened = await openJsonlStore({ dataDir });
    assert.deepEqual(await factsOf(reopened), before);
    await reopened.close();
  });

  it(
    "JSON-lines and PostgreSQL give the same facts for the same catalogue, before and after a reopen",
    {
      skip: skipWithoutPostgres,
    },
    async () => {
      const jsonl = await openJsonlStore({ dataDir: join(tempDir(), "data") });
      await fill(jsonl);
      const expected = await factsOf(jsonl);
      await jsonl.close();
      const database = await freshDatabase();
      try {
        const config = loadConfig({ API_KEYS: "k", DATABASE_URL: database.url }).database!;
        const postgres = await openPostgresStore({ database: config });
        await fill(postgres);
        assert.deepEqual(await factsOf(postgres), expected);
        await postgres.close();
        const reopened = await openPostgresStore({ database: config });
        assert.deepEqual(await factsOf(reopened), expected);
        await reopened.close();
      } finally {
        await database.drop();
      }
    },
  );
});
