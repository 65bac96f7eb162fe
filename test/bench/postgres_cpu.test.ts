/** The PostgreSQL CPU reading of `npm run bench:postgres`: backends that exit are still counted. */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import pg from "pg";
import { cpuSecondsOf, postgresCpuSeconds, postmasterPidOf } from "../../scripts/bench/machine.ts";
import { freshDatabase, skipWithoutPostgres } from "../support/postgres.ts";

/** Both readings are sums of 10 ms clock ticks in floating point: compare them to half a tick. */
const HALF_TICK = 0.005;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("postgresCpuSeconds()", { skip: skipWithoutPostgres }, () => {
  it("postgresCpuSeconds() counts a backend's CPU while it runs and once it has exited", async (t) => {
    const database = await freshDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    let ended = false;
    const end = async () => {
      if (ended) return;
      ended = true;
      await client.end();
    };
    try {
      const [{ setting }] = (await client.query<{ setting: string }>(
        "SELECT setting FROM pg_settings WHERE name = 'data_directory'",
      )).rows;
      if (!existsSync(`${setting}/postmaster.pid`)) {
        t.skip("the test cluster runs on another machine: its /proc is not ours to read");
        return;
      }
      const postmaster = postmasterPidOf(setting);
      const [{ pid: backend }] = (await client.query<{ pid: number }>(
        "SELECT pg_backend_pid() AS pid",
      )).rows;
      // Both read now: the backend's start and first queries are in both, and cancel out.
      const backendBefore = cpuSecondsOf(backend)!;
      const before = postgresCpuSeconds(postmaster);
      // Enough work to show in clock ticks (10 ms each), little enough to stay quick.
      await client.query("SELECT count(*) FROM generate_series(1, 3000000)");
      const spentByBackend = cpuSecondsOf(backend)! - backendBefore;
      assert.ok(spentByBackend >= 0.05, `the backend spent ${spentByBackend} s`);
      const whileConnected = postgresCpuSeconds(postmaster) - before;
      assert.ok(
        whileConnected + HALF_TICK >= spentByBackend,
        `the server's CPU grew by ${whileConnected} s, less than its live backend's ${spentByBackend} s`,
      );
      await end();
      for (let wait = 0; wait < 100 && existsSync(`/proc/${backend}`); wait++) await sleep(50);
      assert.ok(!existsSync(`/proc/${backend}`), "the backend has exited");
      const spent = postgresCpuSeconds(postmaster) - before;
      assert.ok(
        spent + HALF_TICK >= spentByBackend,
        `the server's CPU grew by ${spent} s, less than its exited backend's ${spentByBackend} s`,
      );
    } finally {
      await end();
      await database.drop();
    }
  });
});
