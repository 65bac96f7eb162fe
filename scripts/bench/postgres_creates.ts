/**
 * The PostgreSQL store's creates without HTTP: `--clients` callers, each making one pet after
 * another, spread over `--instances` stores (each its own pool, as separate processes would be)
 * on one database of a throw-away cluster (`scripts/postgres_cluster.mjs`, fsync on). Prints
 * creates per second and pets per commit (the rows' `xmin`), per round. With the HTTP layer gone
 * what is left is the database's side: each batch holds the id counter's row lock through its
 * commit and WAL flush, one batch at a time across every instance (see
 * `src/store/postgres/create_batches.ts`), so the figure is batch size ÷ that serial time.
 *
 *   node_modules/.bin/deno run -A scripts/bench/postgres_creates.ts
 *   node_modules/.bin/deno run -A scripts/bench/postgres_creates.ts --instances=1,2 --clients=64 --seconds=3 --rounds=3
 *
 * Prints figures; asserts nothing.
 */
import process from "node:process";
import pg from "pg";
import { loadConfig } from "../../src/config/config.ts";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/postgres_store.ts";
import { startPostgresCluster } from "../postgres_cluster.mjs";

const options = Object.fromEntries(
  process.argv.slice(2).map((arg) => arg.replace(/^--/, "").split("=") as [string, string]),
);
const instanceCounts = (options.instances ?? "1,2").split(",").map(Number);
const clients = Number(options.clients ?? 64);
const seconds = Number(options.seconds ?? 3);
const rounds = Number(options.rounds ?? 3);

const cluster = await startPostgresCluster();
try {
  for (let round = 1; round <= rounds; round++) {
    for (const instances of instanceCounts) {
      const database = `creates_${round}_${instances}`;
      cluster.adminSql(`CREATE DATABASE ${database}`);
      const url = cluster.adminUrl.replace(/\/postgres$/, `/${database}`);
      const config = loadConfig({ API_KEYS: "k", DATABASE_URL: url }).database!;
      const stores: PostgresStore[] = [];
      for (let i = 0; i < instances; i++) {
        stores.push(await openPostgresStore({ database: config }));
      }
      let created = 0;
      const end = performance.now() + seconds * 1000;
      await Promise.all(Array.from({ length: clients }, async (_, client) => {
        const store = stores[client % instances];
        while (performance.now() < end) {
          const outcome = await store.create({ name: "Rex", categoryId: 1n });
          if (outcome.kind === "created") created++;
        }
      }));
      for (const store of stores) await store.close();
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      const { rows: [{ pets, commits }] } = await admin.query(
        "SELECT count(*) AS pets, count(DISTINCT xmin::text) AS commits FROM pets",
      );
      await admin.end();
      console.log(
        `round ${round}: ${instances} instance(s), ${clients} clients: ` +
          `${Math.round(created / seconds)} creates/s, ` +
          `${(Number(pets) / Number(commits)).toFixed(1)} pets per commit`,
      );
    }
  }
} finally {
  cluster.stop();
}
