/**
 * Restarts behind the proxies the project ships configurations for (deploy/nginx,
 * deploy/haproxy), on the runtime under test, under a load of list pages and keyed creates at 16
 * keep-alive connections: a restart drops no request that reached the service, and
 * SHUTDOWN_DELAY lets HAProxy's health check take an instance out before it stops accepting. The
 * two-instance runs keep both on one PostgreSQL database, so every 201 is read back afterwards.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { describe, it } from "node:test";
import { nextLink } from "../support/link_header.ts";
import { freshDatabase } from "../support/postgres.ts";
import {
  type LoadOutcome,
  type ProxyName,
  runLoad,
  skipWithoutProxy,
  startProxy,
} from "../support/proxies.ts";
import {
  freeFixedPort,
  freePort,
  type ServiceProcess,
  startService,
  targetRuntime,
  temporaryDirectory,
} from "../support/server_process.ts";

const KEY = "proxies-suite-key";
const runtime = targetRuntime();

/** The two-instance runs need one database both instances share. */
const skipWithoutDatabase = process.env.DATABASE_TEST_URL || process.env.REQUIRE_PROXIES === "1"
  ? false
  : "no PostgreSQL for two instances on one store: set DATABASE_TEST_URL (npm test starts one)";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends SIGTERM and waits for the exit (at most 20 s); returns the exit code. */
async function terminate(service: ServiceProcess): Promise<number | string> {
  service.kill("SIGTERM");
  const code = await Promise.race([service.exited, sleep(20_000).then(() => "still running")]);
  if (code === "still running") service.kill("SIGKILL");
  return code;
}

/** Every pet of the store, by id, from a walk of the pages of `service`. */
async function allPets(service: ServiceProcess): Promise<Map<number, string>> {
  const pets = new Map<number, string>();
  let url: string | undefined = `${service.url}/v1/pets?limit=100`;
  while (url !== undefined) {
    const response: Response = await fetch(url, { headers: { authorization: `Bearer ${KEY}` } });
    assert.equal(response.status, 200);
    for (const pet of await response.json()) pets.set(pet.id, pet.name);
    const next = nextLink(response);
    url = next === undefined ? undefined : new URL(next, service.url).href;
  }
  return pets;
}

function assertReadBack(outcome: LoadOutcome, pets: Map<number, string>) {
  const missing = outcome.created.filter(({ id, name }) => pets.get(id) !== name);
  assert.deepEqual(missing, [], "every pet answered 201 is in the store");
}

/** The proxy's log lines other than refused connects (which it retries on the other instance). */
function unexpectedLines(log: string): string {
  return log.split("\n").filter((line) => line !== "" && !/Connection refused/.test(line))
    .join("\n").slice(-3000);
}

function report(move: string, outcome: LoadOutcome, extra = "") {
  console.log(
    `${move} on ${runtime}: ${outcome.requests} requests, ${outcome.created.length} created, ` +
      `${outcome.failures.length} failed${extra}`,
  );
}

/**
 * Two instances on one database behind `proxy`; each is restarted in turn (SIGTERM, its exit, a
 * start on the same port) while the load runs.
 */
async function rollingRestart(proxy: ProxyName, env: Record<string, string>, settleMs: number) {
  const database = await freshDatabase();
  const dirs = [temporaryDirectory(), temporaryDirectory()];
  const ports = [await freeFixedPort(), await freeFixedPort()];
  const start = (index: number) =>
    startService({
      dataDir: dirs[index].path,
      env: { API_KEYS: KEY, DATABASE_URL: database.url, PORT: String(ports[index]), ...env },
    });
  const instances: ServiceProcess[] = [];
  let running: Awaited<ReturnType<typeof startProxy>> | undefined;
  try {
    instances.push(await start(0), await start(1));
    running = await startProxy(proxy, ports);
    const load = runLoad(`http://127.0.0.1:${running.port}`, KEY);
    await sleep(300);
    for (const index of [0, 1]) {
      assert.equal(await terminate(instances[index]), 0, instances[index].stderr());
      instances[index] = await start(index);
      // Until the proxy sends to the restarted instance again (HAProxy: its `rise` checks).
      await sleep(settleMs);
    }
    await sleep(300);
    const outcome = await load.stop();
    report(`rolling restart behind ${proxy}`, outcome);
    assert.deepEqual(outcome.failures, [], unexpectedLines(running.errorLog()));
    assert.ok(outcome.created.length > 20, `only ${outcome.created.length} creates`);
    assertReadBack(outcome, await allPets(instances[0]));
  } finally {
    await running?.stop();
    await Promise.all(instances.map((instance) => instance.stop()));
    for (const dir of dirs) dir.remove();
    await database.drop();
  }
}

describe(`behind a proxy on ${runtime}`, { timeout: 120_000 }, () => {
  it(
    "SIGTERM to the one upstream behind nginx (keepalive) loses no request on a pooled connection",
    {
      skip: skipWithoutProxy("nginx"),
    },
    async () => {
      const dir = temporaryDirectory();
      const port = await freePort();
      const env = { API_KEYS: KEY, PORT: String(port) };
      let service = await startService({ dataDir: dir.path, env });
      const proxy = await startProxy("nginx", [port]);
      try {
        const load = runLoad(`http://127.0.0.1:${proxy.port}`, KEY);
        // Long enough for nginx to pool a connection per client (hundreds of requests).
        await sleep(500);
        assert.equal(await terminate(service), 0, service.stderr());
        // A little load with the upstream gone: each request is refused at connect.
        await sleep(200);
        const outcome = await load.stop();
        const log = proxy.errorLog();
        // nginx's words for a request lost on a connection it had sent it on: the service closed
        // or reset the connection instead of answering.
        const lost = log.split("\n").filter((line) =>
          /prematurely closed|reset by peer|broken pipe/i.test(line)
        );
        const refused = log.split("\n").filter((line) => /Connection refused/.test(line));
        report(
          "SIGTERM to the one upstream behind nginx",
          outcome,
          ` (${lost.length} lost on pooled connections, ${refused.length} refused at connect)`,
        );
        assert.deepEqual(lost, [], "no request lost on a pooled connection");
        // What failed found the listener closed (nginx's 502 for a refused connect): nothing was
        // sent, and with another instance nginx would have sent it there.
        for (const failure of outcome.failures) assert.match(failure, /^(GET|POST) 502 /);
        assert.ok(outcome.failures.length <= refused.length, log.slice(-2000));
        service = await startService({ dataDir: dir.path, env });
        assertReadBack(outcome, await allPets(service));
      } finally {
        await proxy.stop();
        await service.stop();
        dir.remove();
      }
    },
  );

  it("each of two instances restarted in turn behind nginx (keepalive): no request fails", {
    skip: skipWithoutProxy("nginx") || skipWithoutDatabase,
  }, async () => {
    await rollingRestart("nginx", {}, 300);
  });

  it(
    "each of two instances restarted in turn behind HAProxy (http-reuse always, /readyz checks) with SHUTDOWN_DELAY: no request fails",
    {
      skip: skipWithoutProxy("haproxy") || skipWithoutDatabase,
    },
    async () => {
      // Longer than the check's 500 ms x fall 2; the restarted one is back after rise 2 x 500 ms.
      await rollingRestart("haproxy", { SHUTDOWN_DELAY: "2" }, 1_500);
    },
  );
});
