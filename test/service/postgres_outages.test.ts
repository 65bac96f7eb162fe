/**
 * PostgreSQL that crashes and freezes under the service's feet, on the runtime under test: a
 * cluster of the test's own (never the shared one of `npm test`) is stopped as by a power cut and
 * started again three times, then frozen with SIGSTOP once, while 16 clients create pets with
 * Idempotency-Keys and one reads pages. The service must never exit, answer every request within
 * DATABASE_STATEMENT_TIMEOUT_MS + 1 s, lose no 201, make no key's pet twice, say 503 on /readyz
 * during each outage and 200 after it by itself, and stop promptly on SIGTERM afterwards.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { findPostgresBin, startPostgresCluster } from "../../scripts/postgres_cluster.mjs";
import { nextLink } from "../support/link_header.ts";
import { serviceApi } from "../support/service_api.ts";
import {
  type ServiceProcess,
  startService,
  targetRuntime,
  temporaryDirectory,
} from "../support/server_process.ts";

const KEY = "postgres-outages-key";
const runtime = targetRuntime();
const api = serviceApi(KEY);

/** Short, so that a frozen database costs the test seconds, not the default's 5 s per request. */
const STATEMENT_TIMEOUT_MS = 1500;
/** What the service promises for every request while the database is gone or frozen. */
const ANSWER_WITHIN_MS = STATEMENT_TIMEOUT_MS + 1000;
/**
 * Three crashes show that recovery repeats (a second and a third outage on a pool that already
 * reconnected once); ten were once needed to catch a client library's rare exit, long replaced.
 */
const RESTARTS = 3;
const FREEZES = 1;
/** How long PostgreSQL stays down at each restart. */
const OUTAGE_MS = 700;
const CREATORS = 16;
/** How long a stop may take when nothing is in flight, whatever happened to the database. */
const PROMPT_STOP_MS = 1500;

const postgresBin = findPostgresBin();
const skip = postgresBin !== undefined ? false : process.env.REQUIRE_POSTGRES === "1"
  ? false // run, and fail at the cluster's start: CI must not pass by skipping
  : "no local PostgreSQL server binaries (initdb, pg_ctl) to crash and freeze";

/** One request as the client saw it. */
interface Answer {
  readonly path: string;
  readonly status: number;
  readonly code?: string;
  readonly message?: string;
  readonly ms: number;
}

/** A create's request. */
function create(name: string): RequestInit {
  return { method: "POST", body: JSON.stringify({ name, categoryId: 1 }) };
}

/** Sends one request and times it; a request the service never answers is status 0. */
async function timed(
  service: ServiceProcess,
  path: string,
  init: RequestInit,
): Promise<Answer & { body: string }> {
  const started = performance.now();
  try {
    // Far beyond the promise, so that a late answer is measured rather than aborted.
    const response = await api(service, path, {
      ...init,
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS + 10_000),
    });
    const body = await response.text();
    const ms = performance.now() - started;
    const error = response.status >= 400 ? JSON.parse(body) : {};
    return { path, status: response.status, code: error.code, message: error.message, ms, body };
  } catch {
    return { path, status: 0, ms: performance.now() - started, body: "" };
  }
}

/**
 * Clients that create pets until told to stop. Each key is retried after a 503 or 409, as a
 * careful client would, until it gets its 201; so at the end every key has exactly one pet.
 */
function runCreators(service: ServiceProcess) {
  let running = true;
  const answers: Answer[] = [];
  /** Every id a 201 gave each key (one id per key, or a key made two pets). */
  const idsByKey = new Map<string, Set<number>>();
  const creator = async (worker: number) => {
    for (let n = 0; running; n++) {
      const key = `${runtime}-${worker}-${n}`;
      const body = JSON.stringify({ name: `pet ${key}`, categoryId: worker });
      // A key is finished even after the stop: the last one must not be left half-known.
      for (let attempt = 0; attempt < 200; attempt++) {
        const answer = await timed(service, "/v1/pets", {
          method: "POST",
          body,
          headers: { "idempotency-key": key },
        });
        answers.push(answer);
        if (answer.status === 201) {
          const ids = idsByKey.get(key) ?? new Set();
          ids.add(JSON.parse(answer.body).id);
          idsByKey.set(key, ids);
          break;
        }
        if (answer.status !== 503 && answer.status !== 409) break; // reported by the checks
        await sleep(50);
      }
    }
  };
  const reader = async () => {
    while (running) {
      answers.push(await timed(service, "/v1/pets?limit=5", {}));
      await sleep(20);
    }
  };
  const all = Promise.all([...Array.from({ length: CREATORS }, (_, i) => creator(i)), reader()]);
  return {
    answers,
    idsByKey,
    async stop() {
      running = false;
      await all;
    },
  };
}

async function readyStatus(service: ServiceProcess): Promise<number> {
  try {
    const response = await fetch(`${service.url}/readyz`, { signal: AbortSignal.timeout(1000) });
    await response.body?.cancel();
    return response.status;
  } catch {
    return 0;
  }
}

/**
 * Polls /readyz until it says `status`; how long that took. Throws after `withinMs`, or at once
 * when the process has exited (with what it printed).
 */
async function untilReady(service: ServiceProcess, status: number, withinMs: number) {
  const started = performance.now();
  while (await readyStatus(service) !== status) {
    if (service.child.exitCode !== null || service.child.signalCode !== null) {
      const code = service.child.exitCode ?? service.child.signalCode;
      throw new Error(`the service exited (${code}):\n${service.stderr().slice(-2000)}`);
    }
    if (performance.now() - started > withinMs) {
      throw new Error(`/readyz did not answer ${status} within ${withinMs} ms`);
    }
    await sleep(25);
  }
  return performance.now() - started;
}

/** Every id a walk of the pages lists. */
async function listedIds(service: ServiceProcess): Promise<Set<number>> {
  const ids = new Set<number>();
  let next: string | undefined = "/v1/pets?limit=100";
  while (next !== undefined) {
    const response = await api(service, next);
    assert.equal(response.status, 200);
    for (const pet of await response.json() as { id: number }[]) ids.add(pet.id);
    next = nextLink(response);
  }
  return ids;
}

describe(`PostgreSQL crashing and freezing under creates on ${runtime}`, {
  timeout: 150_000,
  skip,
}, () => {
  it("never exits, answers in time, loses no 201, doubles no key, recovers by itself, stops promptly", async () => {
    const cluster = await startPostgresCluster();
    const dir = temporaryDirectory();
    let service: ServiceProcess | undefined;
    try {
      const serviceEnv = {
        API_KEYS: KEY,
        DATABASE_URL: cluster.url,
        DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
        SHUTDOWN_TIMEOUT: "5",
      };
      service = await startService({ dataDir: dir.path, env: serviceEnv });
      let exit: number | string | undefined;
      service.exited.then((code) => (exit = code));
      const load = runCreators(service);
      const recoveries: number[] = [];
      try {
        for (let restart = 0; restart < RESTARTS && exit === undefined; restart++) {
          await sleep(500); // creates commit meanwhile
          cluster.crash();
          await untilReady(service, 503, ANSWER_WITHIN_MS);
          // Long enough for the pool's reconnects to fail a few times (shorter outages rarely
          // ended the process with postgres.js 3.4.9; this one did in 2 of 3 runs).
          await sleep(OUTAGE_MS);
          // Not execFileSync: the creators' answers must be read, and timed, while it starts.
          await cluster.startAsync();
          recoveries.push(await untilReady(service, 200, 5000));
        }
        for (let freeze = 0; freeze < FREEZES && exit === undefined; freeze++) {
          await sleep(500);
          cluster.freeze();
          try {
            // Requests on open connections now wait for answers that do not come.
            await untilReady(service, 503, ANSWER_WITHIN_MS + 1000);
            await sleep(1000); // new requests meet a frozen database too
          } finally {
            cluster.thaw();
          }
          recoveries.push(await untilReady(service, 200, 5000));
        }
        await sleep(300);
      } finally {
        await load.stop();
      }
      assert.equal(exit, undefined, `the service exited (${exit}):\n${service.stderr()}`);

      const { answers, idsByKey } = load;
      const unexpected = answers.filter((a) =>
        !(a.status === 200 || a.status === 201 ||
          (a.status === 503 && a.code === "unavailable") ||
          (a.status === 409 && a.code === "idempotency_key_in_flight"))
      );
      assert.deepEqual(unexpected, [], "only 200, 201, 503 unavailable and 409 in flight");
      const late = answers.filter((answer) => answer.ms > ANSWER_WITHIN_MS);
      assert.deepEqual(late, [], `every request answered within ${ANSWER_WITHIN_MS} ms`);
      const created = answers.filter((answer) => answer.status === 201).length;
      const refused = answers.filter((answer) => answer.status === 503).length;
      assert.ok(created > 100 && refused > 0, `${created} created, ${refused} refused`);

      // Each key has one pet: every 201 for it named the same id, and the table agrees.
      const doubled = [...idsByKey].filter(([, ids]) => ids.size !== 1);
      assert.deepEqual(doubled, [], "no key made two pets");
      const rows = execFileSync(join(postgresBin!, "psql"), [
        cluster.url,
        "-At",
        "-F",
        " ",
        "-c",
        "SELECT idempotency_key, id FROM pets ORDER BY id",
        // Tens of thousands of rows between the outages: far past the default 1 MiB of output.
      ], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 }).trim().split("\n").map((line) =>
        line.split(" ")
      );
      const answered = new Map([...idsByKey].map(([key, ids]) => [key, [...ids][0]]));
      assert.deepEqual(
        new Map(rows.map(([key, id]) => [key, Number(id)])),
        answered,
        "the table holds exactly the pets answered 201, one per key",
      );
      const listed = await listedIds(service);
      const lost = [...answered.values()].filter((id) => !listed.has(id));
      assert.deepEqual(lost, [], "every 201's pet is listed");

      // Nothing in flight now: the stop is as quick as on a database that never went away.
      const stopping = performance.now();
      const code = await service.stop("SIGTERM");
      const stopMs = performance.now() - stopping;
      assert.equal(code, 0, service.stderr());
      assert.ok(stopMs < PROMPT_STOP_MS, `SIGTERM took ${Math.round(stopMs)} ms`);
      const slowest = answers.reduce((a, b) => (a.ms > b.ms ? a : b));
      console.log(
        `${runtime}: ${created} created, ${refused} refused, slowest answer ${
          Math.round(slowest.ms)
        } ms (${slowest.path} ${slowest.status} ${slowest.message ?? ""}), ` +
          `ready again after ${recoveries.map(Math.round).join(", ")} ms, stop ${
            Math.round(stopMs)
          } ms`,
      );

      // A SIGTERM while the database is frozen, creates in flight: they are answered within
      // their deadline, and the stop waits for no connection to the frozen server.
      service = await startService({ dataDir: dir.path, env: serviceEnv });
      assert.equal((await timed(service, "/v1/pets", create("before the freeze"))).status, 201);
      cluster.freeze();
      try {
        const inFlight = [1, 2, 3].map((n) => timed(service!, "/v1/pets", create(`frozen ${n}`)));
        await sleep(200);
        const frozenStop = performance.now();
        const frozenCode = await service.stop("SIGTERM");
        const frozenStopMs = performance.now() - frozenStop;
        assert.equal(frozenCode, 0, service.stderr());
        assert.ok(
          frozenStopMs < ANSWER_WITHIN_MS + PROMPT_STOP_MS,
          `SIGTERM while frozen took ${Math.round(frozenStopMs)} ms`,
        );
        for (const answer of await Promise.all(inFlight)) {
          assert.equal(answer.status, 503, answer.body);
        }
        console.log(`${runtime}: SIGTERM while frozen, stop ${Math.round(frozenStopMs)} ms`);
      } finally {
        cluster.thaw();
      }
    } finally {
      service?.kill("SIGKILL");
      cluster.stop();
      dir.remove();
    }
  });
});
