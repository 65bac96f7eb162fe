/**
 * The PostgreSQL store's ids stop where the file's do (2^53 − 1): a backup of the database must be
 * a file that restores. A create that arrives as a batch ends is not left behind, and clients that
 * come back once answered share the next commit. Run on a real cluster (test/support/postgres.ts).
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { loadConfig } from "../../src/config/config.ts";
import { idempotencyClaim } from "../../src/store/store.ts";
import { openPostgresStore } from "../../src/store/postgres/postgres_store.ts";
import { adminQuery, freshDatabase, skipWithoutPostgres } from "../support/postgres.ts";

const LAST_ID = 9007199254740991;

const idOf = (outcome: { kind: string; pet?: { id: number } }) => outcome.pet?.id ?? outcome.kind;

describe("CreateBatches on PostgreSQL", { skip: skipWithoutPostgres }, () => {
  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const drop of drops) await drop();
  });

  /** A PostgreSQL store on a new database, dropped after the suite. */
  async function storeOnFreshDatabase() {
    const database = await freshDatabase();
    drops.push(database.drop);
    const config = loadConfig({ API_KEYS: "k", DATABASE_URL: database.url }).database!;
    return { database, store: await openPostgresStore({ database: config }) };
  }

  it("create() gives the last id once and refuses the creates past it, writing nothing", async () => {
    const { database, store } = await storeOnFreshDatabase();
    try {
      // The timeline's range starts there too, so only the ceiling stops the ids.
      await adminQuery(
        database.url,
        `UPDATE pet_id_counter SET last_id = ${LAST_ID - 2}, range_start = ${LAST_ID - 2}`,
      );
      const claim = idempotencyClaim("scope", "last", { name: "Last", categoryId: 1n });
      // One batch of three with two ids left.
      const outcomes = await Promise.all([
        store.create({ name: "One", categoryId: 1n }),
        store.create({ name: "Last", categoryId: 1n }, claim),
        store.create({ name: "Past", categoryId: 1n }),
      ]);
      assert.deepEqual(outcomes.map((o) => o.kind === "created" ? o.pet.id : o), [
        LAST_ID - 1,
        LAST_ID,
        {
          kind: "unavailable",
          reason: "the id space is exhausted: ids stop at 9007199254740991",
          idSpaceExhausted: true,
        },
      ]);
      const later = await store.create({ name: "Later", categoryId: 1n });
      assert.equal(later.kind === "unavailable" && later.idSpaceExhausted, true);
      const replay = await store.create({ name: "Last", categoryId: 1n }, claim);
      assert.equal(replay.kind === "replayed" && replay.pet.id, LAST_ID, "a retry replays");
      const rows = await adminQuery<{ id: string }>(
        database.url,
        "SELECT id FROM pets ORDER BY id",
      );
      assert.deepEqual(rows.map((row) => row.id), [String(LAST_ID - 1), String(LAST_ID)]);
      const [{ last_id }] = await adminQuery<{ last_id: string }>(
        database.url,
        "SELECT last_id FROM pet_id_counter",
      );
      assert.equal(last_id, String(LAST_ID), "the counter stops at the ceiling");
    } finally {
      await store.close();
    }
  });

  it("a create made as the last batch is answered goes in a batch of its own at once", async () => {
    const { store } = await storeOnFreshDatabase();
    try {
      // Each create is made the moment the one before is answered: no batch is committing
      // then, nor will one come along to take it.
      for (let i = 1; i <= 5; i++) {
        const started = performance.now();
        const outcome = await store.create({ name: `Next ${i}`, categoryId: 1n });
        assert.equal(idOf(outcome), i);
        assert.ok(performance.now() - started < 1000, "answered without waiting for a deadline");
      }
    } finally {
      await store.close();
    }
  });

  it("clients that create again once answered share one commit each time, not two groups taking turns", async () => {
    const { database, store } = await storeOnFreshDatabase();
    const CLIENTS = 16;
    const CREATES_EACH = 25;
    try {
      await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
        for (let i = 0; i < CREATES_EACH; i++) {
          const outcome = await store.create({ name: `Client ${client}`, categoryId: 1n });
          assert.equal(outcome.kind, "created");
        }
      }));
    } finally {
      await store.close();
    }
    const [{ pets, commits }] = await adminQuery<{ pets: string; commits: string }>(
      database.url,
      "SELECT count(*) AS pets, count(DISTINCT xmin::text) AS commits FROM pets",
    );
    assert.equal(Number(pets), CLIENTS * CREATES_EACH);
    // Taking the queue the moment a batch is answered gave batches of 1 and 15 in turn (8 on
    // average); waiting for the answered callers gives all 16 but at the start and the end.
    const perCommit = Number(pets) / Number(commits);
    assert.ok(perCommit >= 0.7 * CLIENTS, `${perCommit.toFixed(1)} pets per commit`);
  });
});
