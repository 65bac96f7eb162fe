/**
 * The PostgreSQL store's ids stop where the file's do (2^53 − 1): a backup of the database must be
 * a file that restores. Batches in flight wait for the id counter at the database, two at most,
 * and commit in order. Run on a real cluster (test/support/postgres.ts).
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { loadConfig } from "../../src/config/config.ts";
import { idempotencyClaim } from "../../src/store/idempotency.ts";
import { openPostgresStore } from "../../src/store/postgres/postgres_store.ts";
import { adminQuery, freshDatabase, skipWithoutPostgres } from "../support/postgres.ts";

const LAST_ID = 9007199254740991;

/** Connections of the store (its application name) waiting for a lock in `url`'s database. */
async function waitingForLocks(url: string): Promise<number> {
  const [{ count }] = await adminQuery<{ count: string }>(
    url,
    `SELECT count(*) AS count FROM pg_stat_activity
     WHERE datname = current_database() AND application_name = 'animal-store'
       AND wait_event_type = 'Lock'`,
  );
  return Number(count);
}

/** Polls until `count()` is `expected` (within 5 s), and returns it. */
async function settleAt(count: () => Promise<number>, expected: number): Promise<number> {
  let seen = await count();
  for (let tries = 0; seen !== expected && tries < 100; tries++) {
    await sleep(50);
    seen = await count();
  }
  return seen;
}

/** Holds the id counter's row in a transaction of its own, as a batch of another instance would. */
async function holdCounter(url: string): Promise<{ release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("BEGIN");
  await client.query("SELECT last_id FROM pet_id_counter FOR UPDATE");
  let released: Promise<void> | undefined;
  return { release: () => (released ??= client.query("COMMIT").then(() => client.end())) };
}

const idOf = (outcome: { kind: string; pet?: { id: number } }) => outcome.pet?.id ?? outcome.kind;

describe("CreateBatches on PostgreSQL", { skip: skipWithoutPostgres }, () => {
  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const drop of drops) await drop();
  });

  it("create() gives the last id once and refuses the creates past it, writing nothing", async () => {
    const database = await freshDatabase();
    drops.push(database.drop);
    const config = loadConfig({ API_KEYS: "k", DATABASE_URL: database.url }).database!;
    const store = await openPostgresStore({ database: config });
    try {
      await adminQuery(database.url, `UPDATE pet_id_counter SET last_id = ${LAST_ID - 2}`);
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

  it("two batches wait at the database for the id counter, the next in the queue; all commit", async () => {
    const database = await freshDatabase();
    drops.push(database.drop);
    const config = loadConfig({ API_KEYS: "k", DATABASE_URL: database.url }).database!;
    const store = await openPostgresStore({ database: config });
    const counter = await holdCounter(database.url);
    try {
      const first = store.create({ name: "First", categoryId: 1n });
      assert.equal(await settleAt(() => waitingForLocks(database.url), 1), 1);
      const second = [
        store.create({ name: "Second", categoryId: 1n }),
        store.create({ name: "Second too", categoryId: 1n }),
      ];
      assert.equal(await settleAt(() => waitingForLocks(database.url), 2), 2, "a second batch");
      const third = store.create({ name: "Third", categoryId: 1n });
      await sleep(300);
      assert.equal(await waitingForLocks(database.url), 2, "the third waits in the queue");
      await counter.release();
      const ids = (await Promise.all([first, ...second, third])).map(idOf) as number[];
      // Which waiting batch takes the lock next is PostgreSQL's choice; each takes its ids at once.
      assert.deepEqual([...ids].sort(), [1, 2, 3, 4]);
      assert.equal(ids[2], ids[1] + 1, "the second batch's two pets have ids in a row");
    } finally {
      await counter.release();
      await store.close();
    }
  });

  it("with a pool of two, one batch waits at a time and reads still find a connection", async () => {
    const database = await freshDatabase();
    drops.push(database.drop);
    const config = loadConfig({
      API_KEYS: "k",
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: "2",
    }).database!;
    const store = await openPostgresStore({ database: config });
    const counter = await holdCounter(database.url);
    try {
      const first = store.create({ name: "First", categoryId: 1n });
      assert.equal(await settleAt(() => waitingForLocks(database.url), 1), 1);
      const second = store.create({ name: "Second", categoryId: 1n });
      await sleep(300);
      assert.equal(await waitingForLocks(database.url), 1, "the second waits in the queue");
      assert.equal(await store.get(1), undefined, "a read answers meanwhile");
      await counter.release();
      assert.deepEqual((await Promise.all([first, second])).map(idOf), [1, 2]);
    } finally {
      await counter.release();
      await store.close();
    }
  });

  it("a create made as the last batch is answered goes in a batch of its own at once", async () => {
    const database = await freshDatabase();
    drops.push(database.drop);
    // One batch at a time (a pool of two): no second loop could take the create either.
    const config = loadConfig({
      API_KEYS: "k",
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: "2",
    }).database!;
    const store = await openPostgresStore({ database: config });
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
});
