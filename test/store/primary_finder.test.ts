/**
 * A primary that stops taking writes under a running store (its sessions made read-only, as a
 * demoted primary's are): the write fails with "read-only transaction", the store gives the host
 * up (creates 503, a `warn` naming the host), and takes it again by itself once it is writable.
 * On a cluster of the test's own: the setting is the whole server's.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { findPostgresBin, startPostgresCluster } from "../../scripts/postgres_cluster.mjs";
import { loadConfig } from "../../src/config/config.ts";
import { openPostgresStore } from "../../src/store/postgres/postgres_store.ts";
import { waitFor } from "../support/server_process.ts";

const skip = findPostgresBin() !== undefined
  ? false
  : process.env.REQUIRE_POSTGRES === "1"
  ? false
  : "no local PostgreSQL server binaries (initdb, pg_ctl)";

describe("PostgresStore on a primary that turns read-only", { skip, timeout: 60_000 }, () => {
  it("gives the host up at the first refused write, names it once, and writes again once it may", async () => {
    const cluster = await startPostgresCluster();
    const warnings: string[] = [];
    const config = loadConfig({ DATABASE_URL: cluster.url, DATABASE_STATEMENT_TIMEOUT_MS: "1500" })
      .database!;
    const store = await openPostgresStore({
      database: config,
      onWarning: (message) => warnings.push(message),
    });
    try {
      const create = (name: string) => store.create({ name, categoryId: 1n });
      assert.equal((await create("before")).kind, "created");
      cluster.adminSql("ALTER SYSTEM SET default_transaction_read_only = on");
      cluster.adminSql("SELECT pg_reload_conf()");
      // pg_reload_conf() only signals the postmaster: once a new session (forked from it) sees
      // the setting, the postmaster has reloaded and signalled every backend, the pooled one too.
      await waitFor(
        () => cluster.adminSql("SHOW default_transaction_read_only").trim() === "on",
        "the server to reload its settings",
        5000,
      );
      // The pooled connection was writable when opened; now its write is refused.
      const refused = await create("refused");
      assert.equal(refused.kind, "unavailable");
      assert.equal(store.isAvailable(), false);
      await waitFor(() => warnings.some((line) => line.includes("is read-only")), "a warn", 5000);
      await sleep(1500); // the store looks at the host several times meanwhile
      const named = warnings.filter((line) => line.includes("is read-only"));
      assert.equal(named.length, 1, warnings.join("\n"));
      assert.match(named[0], new RegExp(`127\\.0\\.0\\.1:${cluster.port} is read-only`));
      assert.equal((await create("while read-only")).kind, "unavailable");

      cluster.adminSql("ALTER SYSTEM RESET default_transaction_read_only");
      cluster.adminSql("SELECT pg_reload_conf()");
      await waitFor(() => store.isAvailable(), "the store to take the host again", 5000);
      assert.equal((await create("after")).kind, "created");
    } finally {
      await store.close();
      cluster.stop();
    }
  });
});
