/**
 * The PostgreSQL store over real HTTP, on the runtime under test: two instances on one database,
 * a database that goes away and comes back, and the start-up rules of the DATABASE_* settings.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  adminQuery,
  freshDatabase,
  lockPetsTable,
  skipWithoutPostgres,
} from "../support/postgres.ts";
import {
  runService,
  type ServiceProcess,
  startService,
  targetRuntime,
  temporaryDirectory,
  waitFor,
} from "../support/server_process.ts";
import { startTcpProxy } from "../support/tcp_proxy.ts";
import { nextLink } from "../support/link_header.ts";
import { serviceApi } from "../support/service_api.ts";
import { findPostgresBin, startPostgresCluster } from "../../scripts/postgres_cluster.mjs";

const KEY = "postgres-suite-key";
const runtime = targetRuntime();
const SUITE = { timeout: 120_000, skip: skipWithoutPostgres };
const api = serviceApi(KEY);
/** A deadline for the requests a lost or locked database could hold: they must answer 503 fast. */
const OUTAGE_ANSWER_MS = 5_000;

/** GET /readyz's status, given up after OUTAGE_ANSWER_MS. */
async function readyStatus(service: ServiceProcess): Promise<number> {
  const response = await fetch(`${service.url}/readyz`, {
    signal: AbortSignal.timeout(OUTAGE_ANSWER_MS),
  });
  await response.body?.cancel();
  return response.status;
}

async function createPet(
  service: ServiceProcess,
  body: Record<string, unknown> | string,
  options: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await api(service, "/v1/pets", {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: options.headers,
    signal: options.signal,
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** Every id a full walk of the pages returns, each page read from the next instance in turn. */
async function walk(services: ServiceProcess[], path: string): Promise<number[]> {
  const ids: number[] = [];
  let next: string | undefined = path;
  for (let page = 0; next !== undefined; page++) {
    const response = await api(services[page % services.length], next);
    assert.equal(response.status, 200);
    ids.push(...(await response.json() as { id: number }[]).map((pet) => pet.id));
    next = nextLink(response);
  }
  return ids;
}

describe(`two instances on one PostgreSQL database on ${runtime}`, SUITE, () => {
  const dirs = [temporaryDirectory(), temporaryDirectory()];
  let services: ServiceProcess[] = [];
  let dropDatabase = () => Promise.resolve();

  before(async () => {
    const database = await freshDatabase();
    dropDatabase = database.drop;
    // Started together: both migrate the empty database at once, and one waits for the other.
    const started = await Promise.allSettled(dirs.map((dir) =>
      startService({
        dataDir: dir.path,
        env: { API_KEYS: KEY, DATABASE_URL: database.url, DATABASE_POOL_SIZE: "8" },
      })
    ));
    // One that started is kept for `after` to stop, even when the other did not.
    services = started.flatMap((result) => result.status === "fulfilled" ? [result.value] : []);
    for (const result of started) if (result.status === "rejected") throw result.reason;
  });
  after(async () => {
    // Both stopped and everything removed before any check: a failed one must not leak the rest.
    const exitCodes = await Promise.all(services.map((service) => service.stop()));
    try {
      await dropDatabase();
    } finally {
      for (const dir of dirs) dir.remove();
    }
    assert.deepEqual(exitCodes, services.map(() => 0), "both instances exit 0");
  });

  it("creates through both at once; walks read from both never skip or repeat a pet", async () => {
    const made: number[] = [];
    let creating = true;
    const creators = Array.from({ length: 16 }, async (_, worker) => {
      for (let i = 0; i < 45; i++) {
        const status = i % 3 === 0 ? "sold" : "available";
        const result = await createPet(
          services[worker % 2],
          `{"name":"w${worker}-${i}","categoryId":9007199254740993,"status":"${status}"}`,
        );
        assert.equal(result.status, 201, result.text);
        made.push(JSON.parse(result.text).id);
      }
    });
    // A walk that follows the newest pets as they commit: at the end of the list it reads the
    // same page again until a next link appears. Each time a page at the frontier fills up, a pet
    // that committed late with a lower id than the page's last would be skipped for good (a plain
    // sequence does that: with ids taken outside the transaction, 3 of 4 runs of this test failed).
    const followed: number[] = [];
    let followerFailure: unknown;
    const follower = (async () => {
      let url = "/v1/pets?limit=3";
      for (let read = 0; creating || read === 0; read++) {
        const response = await api(services[read % 2], url);
        assert.equal(response.status, 200);
        const next = nextLink(response);
        const pets = await response.json() as { id: number }[];
        if (next === undefined) continue; // the frontier: read this page again
        followed.push(...pets.map((pet) => pet.id));
        url = next;
      }
    })().catch((error) => {
      followerFailure = error; // reported after the creators, who go on meanwhile
    });
    try {
      await Promise.all(creators);
    } finally {
      // Also when a creator fails: the follower must end, not poll the frontier forever.
      creating = false;
      await follower;
    }
    if (followerFailure !== undefined) throw followerFailure;

    assert.equal(new Set(made).size, made.length, "no id given twice");
    const all = await walk(services, "/v1/pets?limit=100");
    assert.deepEqual(all, [...made].sort((a, b) => a - b), "every pet, from either instance");
    assert.ok(followed.length > 100, `the follower kept up (${followed.length} pets)`);
    assert.deepEqual(followed, all.slice(0, followed.length), "no pet skipped or repeated");
    const soldFromA = await walk([services[0]], "/v1/pets?status=sold&limit=5");
    const soldFromB = await walk([services[1]], "/v1/pets?status=sold&limit=5");
    assert.deepEqual(soldFromA, soldFromB);
    assert.equal(soldFromA.length, 16 * 15);
    const one = await api(services[1], `/v1/pets?limit=1`);
    assert.match(await one.text(), /"categoryId":9007199254740993[,}]/, "int64 kept exactly");
  });

  it("an Idempotency-Key sent to both instances at once makes one pet", async () => {
    for (let round = 0; round < 20; round++) {
      const headers = { "idempotency-key": `both-${round}` };
      const body = { name: `Once ${round}`, categoryId: round };
      const results = await Promise.all(
        services.map((service) => createPet(service, body, { headers })),
      );
      const statuses = results.map((result) => result.status).sort();
      assert.ok(
        statuses[0] === 201 && (statuses[1] === 201 || statuses[1] === 409),
        `got ${statuses}`,
      );
      for (const inFlight of results.filter((result) => result.status === 409)) {
        assert.equal(JSON.parse(inFlight.text).code, "idempotency_key_in_flight", inFlight.text);
      }
      const ids = new Set(
        results.filter((r) => r.status === 201).map((r) => JSON.parse(r.text).id),
      );
      assert.equal(ids.size, 1, "one pet, replayed");
      // Afterwards, either instance replays it; another body is refused.
      const replay = await createPet(services[round % 2], body, { headers });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.equal(JSON.parse(replay.text).id, [...ids][0]);
      const reused = await createPet(services[(round + 1) % 2], { ...body, name: "Else" }, {
        headers,
      });
      assert.equal(reused.status, 422);
    }
  });
});

describe(`PostgreSQL store when the database goes away on ${runtime}`, SUITE, () => {
  it("answers 503 and /readyz 503 while the database is unreachable, and recovers by itself", async () => {
    const database = await freshDatabase();
    const proxy = await startTcpProxy(Number(new URL(database.url).port));
    const dir = temporaryDirectory();
    const url = new URL(database.url);
    url.port = String(proxy.port);
    // The test cluster trusts loopback, so this password is sent nowhere: it must not be logged.
    url.password = "s3cret-password";
    const service = await startService({
      dataDir: dir.path,
      env: { API_KEYS: KEY, DATABASE_URL: url.toString() },
    });
    try {
      assert.equal((await createPet(service, { name: "Before", categoryId: 1 })).status, 201);
      await proxy.cut();
      const during = await createPet(service, { name: "During", categoryId: 2 }, {
        signal: AbortSignal.timeout(OUTAGE_ANSWER_MS),
      });
      assert.equal(during.status, 503, during.text);
      assert.equal(JSON.parse(during.text).code, "unavailable");
      const list = await api(service, "/v1/pets", {
        signal: AbortSignal.timeout(OUTAGE_ANSWER_MS),
      });
      assert.equal(list.status, 503);
      assert.equal((await list.json()).code, "unavailable");
      assert.equal(await readyStatus(service), 503);
      assert.equal((await api(service, "/healthz")).status, 200, "the process still runs");

      await proxy.restore();
      await waitFor(
        async () => await readyStatus(service) === 200,
        "readiness after the database returns",
        15_000,
      );
      assert.equal((await createPet(service, { name: "After", categoryId: 3 })).status, 201);
      const names = (await (await api(service, "/v1/pets")).json()).map((pet: { name: string }) =>
        pet.name
      );
      assert.deepEqual(names, ["Before", "After"], "the refused create left nothing behind");
      const logged = service.stdout() + service.stderr();
      assert.ok(!logged.includes("s3cret-password"), "no password in the log");
      assert.match(service.stdout(), /Database connection lost/);
      assert.match(service.stdout(), /Database reachable again/);
    } finally {
      await service.stop();
      await proxy.close();
      await database.drop();
      dir.remove();
    }
  });

  it("starts before its database: /readyz 503 until it is reachable, an API request waits for it; SIGTERM while waiting exits 0", async () => {
    const database = await freshDatabase();
    const proxy = await startTcpProxy(Number(new URL(database.url).port), { up: false });
    const dir = temporaryDirectory();
    const url = new URL(database.url);
    url.port = String(proxy.port);
    try {
      const service = await startService({
        dataDir: dir.path,
        env: { API_KEYS: KEY, DATABASE_URL: url.toString() },
      });
      assert.equal(await readyStatus(service), 503);
      // Sent while the store loads: answered once it has loaded (within 10 s), not with a 503.
      const early = api(service, "/v1/pets", { signal: AbortSignal.timeout(15_000) });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await proxy.restore();
      assert.equal((await early).status, 200);
      await waitFor(
        async () => await readyStatus(service) === 200,
        "readiness once the database is up",
        15_000,
      );
      assert.equal((await api(service, "/v1/pets")).status, 200);
      assert.equal(await service.stop(), 0);

      await proxy.cut();
      const waiting = await startService({
        dataDir: dir.path,
        env: { API_KEYS: KEY, DATABASE_URL: url.toString() },
      });
      await waitFor(() => /not reachable yet/.test(waiting.stdout()), "a retry logged");
      assert.equal(await waiting.stop("SIGTERM"), 0);
    } finally {
      await proxy.close();
      await database.drop();
      dir.remove();
    }
  });
});

describe(`DATABASE_STATEMENT_TIMEOUT_MS on ${runtime}`, SUITE, () => {
  it("a statement stuck behind a lock is cancelled: 503 for that request, the instance stays ready", async () => {
    const database = await freshDatabase();
    const dir = temporaryDirectory();
    const service = await startService({
      dataDir: dir.path,
      env: { API_KEYS: KEY, DATABASE_URL: database.url, DATABASE_STATEMENT_TIMEOUT_MS: "300" },
    });
    let lock: { release: () => Promise<void> } | undefined;
    try {
      assert.equal((await createPet(service, { name: "Before", categoryId: 1 })).status, 201);
      // An operator's transaction holds the table: every read waits behind it.
      lock = await lockPetsTable(database.url);
      // The deadline is the request's own: a 503 within it means the statement timeout
      // cancelled the statement; a hang aborts the request and fails the test.
      const stuck = await api(service, "/v1/pets", {
        signal: AbortSignal.timeout(OUTAGE_ANSWER_MS),
      });
      assert.equal(stuck.status, 503);
      assert.equal((await stuck.json()).code, "unavailable");
      assert.equal(await readyStatus(service), 200, "a slow statement is no outage");
      await lock.release();
      assert.equal((await api(service, "/v1/pets")).status, 200);
    } finally {
      await lock?.release();
      await service.stop();
      await database.drop();
      dir.remove();
    }
  });
});

describe(`DATABASE_* settings on ${runtime}`, SUITE, () => {
  it("DATABASE_SSL=prefer falls back to plain text on a server without TLS", async () => {
    const database = await freshDatabase();
    const dir = temporaryDirectory();
    try {
      const service = await startService({
        dataDir: dir.path,
        env: { API_KEYS: KEY, DATABASE_URL: database.url, DATABASE_SSL: "prefer" },
      });
      try {
        assert.equal((await createPet(service, { name: "Plain", categoryId: 1 })).status, 201);
      } finally {
        assert.equal(await service.stop(), 0);
      }
    } finally {
      await database.drop();
      dir.remove();
    }
  });

  it("exits 2 naming a bad DATABASE_* setting, 1 for a missing database or a newer schema", async () => {
    const dir = temporaryDirectory();
    try {
      const base = { API_KEYS: KEY, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dir.path };
      const bad: [Record<string, string>, string][] = [
        [{ DATABASE_URL: "mysql://localhost/pets" }, "DATABASE_URL"],
        [
          { DATABASE_URL: "postgres://localhost/pets", DATABASE_POOL_SIZE: "0" },
          "DATABASE_POOL_SIZE",
        ],
        [{ DATABASE_URL: "postgres://localhost/pets", DATABASE_SSL: "yes" }, "DATABASE_SSL"],
        [{ DATABASE_POOL_SIZE: "5" }, "DATABASE_POOL_SIZE"],
      ];
      for (const [env, setting] of bad) {
        const result = await runService([], { env: { ...base, ...env } });
        assert.equal(result.code, 2, `${setting}: ${result.stderr}`);
        assert.match(result.stderr, new RegExp(setting));
        assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
      }
      // A schema migrated by a newer release: an older one must not write to it.
      const newer = await freshDatabase();
      await adminQuery(
        newer.url,
        `CREATE TABLE animal_store_migrations (version integer PRIMARY KEY,
          description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
        "INSERT INTO animal_store_migrations (version, description) VALUES (99, 'future')",
      );
      const tooNew = await runService([], { env: { ...base, DATABASE_URL: newer.url } });
      await newer.drop();
      assert.equal(tooNew.code, 1, tooNew.stderr);
      assert.match(tooNew.stderr, /schema is at version 99, newer than this release knows/);
      assert.equal(tooNew.stderr.trim().split("\n").length, 1, tooNew.stderr);

      const database = await freshDatabase();
      await database.drop();
      const missing = await runService([], { env: { ...base, DATABASE_URL: database.url } });
      assert.equal(missing.code, 1, missing.stderr);
      assert.match(missing.stderr, /database does not exist/);
      assert.equal(missing.stderr.trim().split("\n").length, 1, missing.stderr);
    } finally {
      dir.remove();
    }
  });
});

describe(`import from the JSON-lines file into PostgreSQL on ${runtime}`, SUITE, () => {
  it("copies every pet, exact value and idempotency key; the service then serves them from the database", async () => {
    const dir = temporaryDirectory();
    const database = await freshDatabase();
    try {
      const fileService = await startService({ dataDir: dir.path, env: { API_KEYS: KEY } });
      const keyed = { "idempotency-key": "import-me" };
      const keyedBody = '{"name":"Keyed","categoryId":-9223372036854775808,"status":"pending"}';
      assert.equal((await createPet(fileService, keyedBody, { headers: keyed })).status, 201);
      for (let i = 0; i < 25; i++) {
        const body = `{"name":"Pet ${i} 😀","categoryId":${9007199254740993n + BigInt(i)}${
          i % 2 ? ',"status":"sold"' : ""
        }}`;
        assert.equal((await createPet(fileService, body)).status, 201);
      }
      const before = await (await api(fileService, "/v1/pets?limit=100")).text();
      // Held by the running file service: the import must refuse.
      const busy = await runService(["import"], {
        env: { DATA_DIR: dir.path, DATABASE_URL: database.url },
      });
      assert.equal(busy.code, 1, busy.stderr);
      assert.match(busy.stderr, /in use/);
      assert.equal(await fileService.stop(), 0);
      // A torn last line (a write the crash cut short) is left out.
      appendFileSync(join(dir.path, "pets.jsonl"), '{"type":"pet","v":1,"pet":{"id":27,"na');

      const imported = await runService(["import"], {
        env: { DATA_DIR: dir.path, DATABASE_URL: database.url },
      });
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /Imported 26 pets \(highest id 26\) and 1 idempotency keys/);
      assert.match(imported.stderr, /torn last line/);

      const again = await runService(["import"], {
        env: { DATA_DIR: dir.path, DATABASE_URL: database.url },
      });
      assert.equal(again.code, 1);
      assert.match(again.stderr, /already holds 26 pets/);

      const databaseService = await startService({
        dataDir: join(dir.path, "unused-by-the-database-store"),
        env: { API_KEYS: KEY, DATABASE_URL: database.url },
      });
      try {
        assert.equal(await (await api(databaseService, "/v1/pets?limit=100")).text(), before);
        const replay = await createPet(databaseService, keyedBody, { headers: keyed });
        assert.equal(replay.status, 201);
        assert.equal(JSON.parse(replay.text).id, 1, "the key still replays its pet");
        const next = await createPet(databaseService, '{"name":"New","categoryId":1}');
        assert.equal(JSON.parse(next.text).id, 27, "ids continue after the imported ones");
      } finally {
        await databaseService.stop();
      }
    } finally {
      await database.drop();
      dir.remove();
    }
  });

  it("imports nothing from a damaged file, naming the line", async () => {
    const dir = temporaryDirectory();
    const database = await freshDatabase();
    try {
      writeFileSync(
        join(dir.path, "pets.jsonl"),
        '{"type":"pet","v":1,"pet":{"id":1,"name":"A","categoryId":1}}\nnot json\n',
      );
      const result = await runService(["import"], {
        env: { DATA_DIR: dir.path, DATABASE_URL: database.url },
      });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /line 2 is not valid JSON; nothing imported/);
      assert.equal(result.stderr.trim().split("\n").length, 1);
    } finally {
      await database.drop();
      dir.remove();
    }
  });
});

/**
 * Why the TLS suite cannot run here, or false: besides a configured PostgreSQL it starts a cluster
 * of its own (initdb and pg_ctl, found as scripts/postgres_cluster.mjs finds them) and makes its
 * certificates with openssl.
 */
function skipWithoutLocalTls(): string | false {
  if (skipWithoutPostgres !== false) return skipWithoutPostgres;
  if (findPostgresBin() === undefined) {
    return "no local PostgreSQL server binaries (initdb, pg_ctl) to start a TLS cluster";
  }
  if (spawnSync("openssl", ["version"], { stdio: "ignore" }).status !== 0) {
    return "no openssl to make the test certificates";
  }
  return false;
}

describe(`DATABASE_SSL against a PostgreSQL server with TLS on ${runtime}`, {
  ...SUITE,
  skip: skipWithoutLocalTls(),
}, () => {
  it("verify-full connects over TLS with the CA file, and exits 1 when the certificate does not verify", async () => {
    const tls = temporaryDirectory();
    // A private CA and a server certificate for 127.0.0.1, made here with openssl.
    const openssl = (...args: string[]) =>
      execFileSync("openssl", args, { cwd: tls.path, stdio: "pipe" });
    openssl(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=test CA",
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
    );
    openssl(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-subj",
      "/CN=127.0.0.1",
      "-keyout",
      "server.key",
      "-out",
      "server.csr",
    );
    writeFileSync(join(tls.path, "san.ext"), "subjectAltName=IP:127.0.0.1\n");
    openssl(
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "2",
      "-extfile",
      "san.ext",
      "-out",
      "server.pem",
    );
    const cluster = await startPostgresCluster({
      files: {
        "server.pem": readFileSync(join(tls.path, "server.pem")),
        "server.key": readFileSync(join(tls.path, "server.key")),
      },
      settings: [
        "ssl=on",
        "ssl_cert_file={dir}/server.pem",
        "ssl_key_file={dir}/server.key",
        // A second address the certificate does not name.
        "listen_addresses=127.0.0.1,127.0.0.2",
      ],
    });
    const dir = temporaryDirectory();
    try {
      const base = { API_KEYS: KEY, DATABASE_URL: cluster.url };
      const service = await startService({
        dataDir: dir.path,
        env: {
          ...base,
          DATABASE_SSL: "verify-full",
          DATABASE_SSL_CA_FILE: join(tls.path, "ca.pem"),
        },
      });
      try {
        assert.equal((await createPet(service, { name: "Secure", categoryId: 1 })).status, 201);
        const rows = await adminQuery<{ ssl: boolean }>(
          cluster.adminUrl,
          `SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a ON a.pid = s.pid
           WHERE a.application_name = 'animal-store'`,
        );
        assert.ok(rows.length > 0 && rows.every((row) => row.ssl === true), "every connection TLS");
      } finally {
        await service.stop();
      }
      // prefer: TLS when the server speaks it (without checking the certificate).
      const preferring = await startService({
        dataDir: dir.path,
        env: { ...base, DATABASE_SSL: "prefer" },
      });
      try {
        assert.equal(
          (await createPet(preferring, { name: "Preferred", categoryId: 2 })).status,
          201,
        );
        const rows = await adminQuery<{ ssl: boolean }>(
          cluster.adminUrl,
          `SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a ON a.pid = s.pid
           WHERE a.application_name = 'animal-store'`,
        );
        assert.ok(rows.length > 0 && rows.every((row) => row.ssl === true), "prefer: TLS");
      } finally {
        await preferring.stop();
      }
      // The system's CAs do not know the private CA: refused at start, one line, exit 1.
      const unverified = await runService([], {
        env: {
          ...base,
          PORT: "0",
          HOST: "127.0.0.1",
          DATA_DIR: dir.path,
          DATABASE_SSL: "verify-full",
        },
      });
      assert.equal(unverified.code, 1, unverified.stderr);
      assert.match(unverified.stderr, /Cannot open store: database: .*certificate/i);
      assert.equal(unverified.stderr.trim().split("\n").length, 1, unverified.stderr);
      // A trusted certificate for another host name: refused too.
      const otherHost = await runService([], {
        env: {
          ...base,
          DATABASE_URL: cluster.url.replace("127.0.0.1", "127.0.0.2"),
          PORT: "0",
          HOST: "127.0.0.1",
          DATA_DIR: dir.path,
          DATABASE_SSL: "verify-full",
          DATABASE_SSL_CA_FILE: join(tls.path, "ca.pem"),
        },
      });
      assert.equal(otherHost.code, 1, otherHost.stderr);
      assert.match(otherHost.stderr, /Cannot open store: database: .*(altname|match)/i);
    } finally {
      cluster.stop();
      dir.remove();
      tls.remove();
    }
  });
});
