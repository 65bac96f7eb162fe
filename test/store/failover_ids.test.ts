/**
 * The id counter's range per database timeline (src/store/postgres/failover.ts), on a real
 * cluster: a store that meets a newer timeline than the counter's moves the ids one range per
 * timeline step, a lower one (a restore) one range; a timeline's ids stop at the end of its
 * range; and what an instance remembers of its acknowledged ids is bounded and described in ranges.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { loadConfig } from "../../src/config/config.ts";
import {
  ACKNOWLEDGED_MEMORY,
  AcknowledgedIds,
  describeIds,
  TIMELINE_ID_SPAN,
} from "../../src/store/postgres/failover.ts";
import { openPostgresStore } from "../../src/store/postgres/postgres_store.ts";
import type { CreateOutcome } from "../../src/store/store.ts";
import { adminQuery, freshDatabase, skipWithoutPostgres } from "../support/postgres.ts";

const idOf = (outcome: CreateOutcome) => outcome.kind === "created" ? outcome.pet.id : outcome;

describe("the id counter's range per timeline", { skip: skipWithoutPostgres }, () => {
  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const drop of drops) await drop();
  });

  async function freshStoreConfig() {
    const database = await freshDatabase();
    drops.push(database.drop);
    return { url: database.url, config: loadConfig({ DATABASE_URL: database.url }).database! };
  }

  it("a store on a newer timeline than the counter's gives ids one range further per step; on an older one, one range", async () => {
    const { url, config } = await freshStoreConfig();
    let store = await openPostgresStore({ database: config });
    assert.equal(idOf(await store.create({ name: "first", categoryId: 1n })), 1);
    await store.close();
    // As if the counter was last written two timelines ago (two promotions since).
    await adminQuery(url, "UPDATE pet_id_counter SET timeline = timeline - 2");
    store = await openPostgresStore({ database: config });
    assert.equal(
      idOf(await store.create({ name: "two steps", categoryId: 1n })),
      2 * TIMELINE_ID_SPAN + 1,
    );
    await store.close();
    // As if restored into a cluster on a lower timeline.
    await adminQuery(url, "UPDATE pet_id_counter SET timeline = timeline + 5");
    store = await openPostgresStore({ database: config });
    assert.equal(
      idOf(await store.create({ name: "restored", categoryId: 1n })),
      3 * TIMELINE_ID_SPAN + 1,
    );
    // The same timeline again: no move.
    await store.close();
    store = await openPostgresStore({ database: config });
    assert.equal(
      idOf(await store.create({ name: "again", categoryId: 1n })),
      3 * TIMELINE_ID_SPAN + 2,
    );
    await store.close();
  });

  it("a timeline's ids stop at the end of its range, and nothing past it is written", async () => {
    const { url, config } = await freshStoreConfig();
    const store = await openPostgresStore({ database: config });
    try {
      await adminQuery(url, `UPDATE pet_id_counter SET last_id = ${TIMELINE_ID_SPAN - 1}`);
      const outcomes = await Promise.all([
        store.create({ name: "last of the range", categoryId: 1n }),
        store.create({ name: "past it", categoryId: 1n }),
      ]);
      assert.equal(idOf(outcomes[0]), TIMELINE_ID_SPAN);
      const refused = outcomes[1];
      assert.equal(refused.kind, "unavailable");
      assert.match(
        refused.kind === "unavailable" ? refused.reason : "",
        /timeline's .* ids are used up/,
      );
      const [{ count }] = await adminQuery<{ count: string }>(
        url,
        "SELECT count(*) AS count FROM pets",
      );
      assert.equal(count, "1");
    } finally {
      await store.close();
    }
  });
});

describe("AcknowledgedIds", () => {
  it("keeps the latest ACKNOWLEDGED_MEMORY ids as ranges, forgetting the oldest", () => {
    const ids = new AcknowledgedIds();
    ids.add(1, 3);
    ids.add(4, 4);
    ids.add(10, 11);
    assert.deepEqual(ids.ranges(), [[1, 4], [10, 11]]);
    ids.clear();
    assert.deepEqual(ids.ranges(), []);
    ids.add(1, ACKNOWLEDGED_MEMORY);
    ids.add(ACKNOWLEDGED_MEMORY + 10, ACKNOWLEDGED_MEMORY + 14);
    assert.deepEqual(ids.ranges(), [[6, ACKNOWLEDGED_MEMORY], [
      ACKNOWLEDGED_MEMORY + 10,
      ACKNOWLEDGED_MEMORY + 14,
    ]]);
  });
});

describe("describeIds()", () => {
  it("writes runs of consecutive ids as ranges", () => {
    assert.equal(describeIds([5, 6, 7, 9, 12, 13]), "5–7, 9, 12–13");
    assert.equal(describeIds([]), "");
  });
});
