/**
 * PostgreSQL for the tests. `npm test` (scripts/test.mjs) starts a throw-away cluster and passes
 * its admin URL as `DATABASE_TEST_URL`; each suite makes a fresh database of its own on it, so
 * suites never see each other's pets. Without a cluster the PostgreSQL suites are skipped — unless
 * `REQUIRE_POSTGRES=1` (CI), where a missing cluster fails the run instead of hiding it.
 */
import process from "node:process";
import { randomBytes } from "node:crypto";
import pg from "pg";

/** The admin URL of the test cluster, or undefined when there is none. */
const POSTGRES_TEST_URL: string | undefined = process.env.DATABASE_TEST_URL || undefined;

/** Why the PostgreSQL suites are skipped, or false when they run. */
export const skipWithoutPostgres: string | false = POSTGRES_TEST_URL !== undefined
  ? false
  : process.env.REQUIRE_POSTGRES === "1"
  ? false // run, and fail in freshDatabase: CI must not pass by skipping
  : "no PostgreSQL: set DATABASE_TEST_URL, or install postgresql and use npm test";

/** A new empty database on the test cluster; `drop()` removes it. */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (POSTGRES_TEST_URL === undefined) {
    throw new Error("REQUIRE_POSTGRES=1 but DATABASE_TEST_URL is not set");
  }
  const name = `animal_test_${randomBytes(6).toString("hex")}`;
  await adminQuery(POSTGRES_TEST_URL, `CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_TEST_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await adminQuery(POSTGRES_TEST_URL!, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Runs statements on their own connection to `url`, closed afterwards; the last one's rows. */
export async function adminQuery<Row = Record<string, unknown>>(
  url: string,
  ...statements: string[]
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let rows: Row[] = [];
    for (const statement of statements) rows = (await client.query(statement)).rows;
    return rows;
  } finally {
    await client.end();
  }
}

/**
 * Holds `LOCK TABLE pets IN ACCESS EXCLUSIVE MODE` in a transaction on its own connection to
 * `url` (an operator's long transaction: every statement on the table waits) until `release` (which may be called twice).
 */
export async function lockPetsTable(url: string): Promise<{ release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("BEGIN");
  await client.query("LOCK TABLE pets IN ACCESS EXCLUSIVE MODE");
  let released: Promise<void> | undefined;
  return {
    release() {
      released ??= client.query("ROLLBACK").then(() => client.end());
      return released;
    },
  };
}
