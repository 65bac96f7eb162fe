/**
 * Hardening over real HTTP, on the runtime under test: SIGHUP key reload, Idempotency-Key across
 * a restart and a kill -9, CORS and RATE_LIMIT on a real socket, the request-head cap, and (on
 * the Node build, whose adapter sets its own timeouts) slow-header clients being cut off.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { backends } from "../support/backends.ts";
import { rawStatusLine } from "../support/raw_http.ts";
import {
  type ServiceProcess,
  startService,
  targetRuntime,
  temporaryDirectory,
  waitFor,
} from "../support/server_process.ts";
import { serviceApi } from "../support/service_api.ts";
import { withService } from "../support/service_fixture.ts";

const runtime = targetRuntime();
const TIMEOUT = { timeout: 60_000 };

function get(service: ServiceProcess, path: string, key: string): Promise<Response> {
  return serviceApi(key)(service, path);
}

/**
 * Runs `check` against a started service, then stops it whatever happened, and only then
 * asserts the exit code: a failed check is the failure reported, and no process is left behind.
 */
async function checkThenStop(
  service: ServiceProcess,
  check: () => Promise<void>,
): Promise<void> {
  let exitCode: number | string;
  try {
    await check();
  } finally {
    exitCode = await service.stop();
  }
  assert.equal(exitCode, 0, "the service exits 0");
}

describe(`SIGHUP key reload on ${runtime}`, TIMEOUT, () => {
  it("swaps in the rewritten keys file, and keeps the old keys when the file is emptied", async () => {
    const dir = temporaryDirectory();
    try {
      const file = join(dir.path, "keys.txt");
      writeFileSync(file, "old-key\n");
      const service = await startService({
        dataDir: join(dir.path, "data"),
        env: { API_KEYS: "env-key", API_KEYS_FILE: file },
      });
      await checkThenStop(service, async () => {
        assert.equal((await get(service, "/v1/pets", "old-key")).status, 200);
        assert.equal((await get(service, "/v1/pets", "new-key")).status, 401);

        writeFileSync(file, "# rotated\nnew-key\n");
        service.kill("SIGHUP");
        await waitFor(() => service.stdout().includes("API keys reloaded"), "the reload");
        assert.equal((await get(service, "/v1/pets", "old-key")).status, 401);
        assert.equal((await get(service, "/v1/pets", "new-key")).status, 200);
        assert.equal((await get(service, "/v1/pets", "env-key")).status, 200, "API_KEYS stays");

        writeFileSync(file, "");
        service.kill("SIGHUP");
        await waitFor(() => service.stdout().includes("keeping the previous"), "the warning");
        assert.equal((await get(service, "/v1/pets", "new-key")).status, 200, "old set kept");
        const warning = service.stdout().split("\n").find((line) => line.includes("keeping"))!;
        assert.equal(JSON.parse(warning).level, "warn");
        assert.ok(!service.stdout().includes("new-key") && !service.stdout().includes("old-key"));
      });
    } finally {
      dir.remove();
    }
  });
});

for (const backend of backends) {
  describe(`Idempotency-Key across restarts on ${runtime}, ${backend.name}`, {
    ...TIMEOUT,
    skip: backend.skip,
  }, () => {
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      it(`replays the original 201 after a ${signal === "SIGKILL" ? "kill -9" : "restart"}`, async () => {
        const dir = temporaryDirectory();
        const settings = await backend.settings();
        const key = "idem-suite-key";
        const env = { API_KEYS: key, ...settings.env };
        const api = serviceApi(key);
        const create = (service: ServiceProcess, body: string) =>
          api(service, "/v1/pets", {
            method: "POST",
            body,
            headers: { "idempotency-key": "order-42" },
          });
        try {
          const first = await startService({ dataDir: dir.path, env });
          let original: string;
          let location: string | null;
          try {
            const created = await create(first, '{"name":"Once","categoryId":9007199254740993}');
            original = await created.text();
            assert.equal(created.status, 201, original);
            location = created.headers.get("location");
          } finally {
            first.kill(signal);
            await first.exited;
          }

          const second = await startService({ dataDir: dir.path, env });
          await checkThenStop(second, async () => {
            // Same fields, other spacing and order: the same request.
            const again = await create(
              second,
              '{ "categoryId": 9007199254740993, "name": "Once" }',
            );
            assert.equal(again.status, 201);
            assert.equal(again.headers.get("idempotent-replayed"), "true");
            assert.equal(await again.text(), original);
            assert.equal(again.headers.get("location"), location);
            const changed = await create(second, '{"name":"Twice","categoryId":1}');
            assert.equal(changed.status, 422);
            assert.equal((await changed.json()).code, "idempotency_key_reused");
            const list = await (await get(second, "/v1/pets", key)).json();
            assert.equal(list.length, 1, "no second pet");
          });
        } finally {
          await settings.remove();
          dir.remove();
        }
      });
    }
  });
}

describe(`CORS, RATE_LIMIT and request-head caps over HTTP on ${runtime}`, TIMEOUT, () => {
  it("answers preflights, decorates errors, limits per key and refuses an over-size head", async () => {
    const origin = "https://app.example.com";
    const key = "limit-suite-key";
    const env = { CORS_ORIGINS: origin, RATE_LIMIT: "3" };
    await withService({ key, env }, (service) =>
      checkThenStop(service, async () => {
        const preflight = await fetch(`${service.url}/v1/pets`, {
          method: "OPTIONS",
          headers: { origin, "access-control-request-method": "POST" },
        });
        assert.equal(preflight.status, 204);
        assert.equal(preflight.headers.get("access-control-allow-origin"), origin);
        assert.equal(
          preflight.headers.get("access-control-allow-methods"),
          "GET, HEAD, POST, OPTIONS",
        );

        const anonymous = await fetch(`${service.url}/v1/pets`, { headers: { origin } });
        assert.equal(anonymous.status, 401);
        assert.equal(anonymous.headers.get("access-control-allow-origin"), origin);
        assert.equal(anonymous.headers.get("server"), null, "no server details");
        assert.equal(anonymous.headers.get("x-powered-by"), null);
        assert.equal(anonymous.headers.get("x-content-type-options"), "nosniff");
        await anonymous.body?.cancel();

        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) {
          const response = await get(service, "/v1/pets", key);
          statuses.push(response.status);
          if (i === 3) {
            assert.ok(Number(response.headers.get("retry-after")) >= 1);
            assert.equal((await response.json()).code, "rate_limited");
          } else {
            assert.match(response.headers.get("ratelimit") ?? "", /^"per-key";r=\d+;t=\d+$/);
            await response.body?.cancel();
          }
        }
        assert.deepEqual(statuses, [200, 200, 200, 429]);
        assert.equal(
          (await fetch(`${service.url}/healthz`)).status,
          200,
          "health is never limited",
        );

        // Every runtime refuses a request head of 64 KiB or more before the app sees it.
        const huge = await rawStatusLine(service.port, [
          `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(64 * 1024)}\r\n\r\n`,
        ]);
        assert.match(huge, /^(HTTP\/1\.1 4(00|31) |closed$)/, huge);
        assert.equal((await fetch(`${service.url}/healthz`)).status, 200, "still serving");
      }));
  });
});

describe(`slow clients on ${runtime}`, TIMEOUT, () => {
  it("cuts off a client that sends its headers a byte at a time (slowloris)", {
    // Deno.serve has no header-read timeout, and Bun's own (about 10 s) is not ours to test
    // (docs/security.md, Limits): this checks the Node adapter's settings.
    skip: runtime !== "node" ? "the Node adapter's timeouts only" : false,
  }, async () => {
    await withService({ key: "k" }, (service) =>
      checkThenStop(service, async () => {
        const head = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${"a".repeat(200)}`;
        // One byte every 100 ms never completes the head (it has no blank line): the event is
        // the server giving up, which must come before the 30 s deadline of rawStatusLine.
        const outcome = await rawStatusLine(service.port, [...head], { gapMs: 100 });
        assert.match(outcome, /^(HTTP\/1\.1 408 |closed$)/, outcome);
        assert.equal((await fetch(`${service.url}/healthz`)).status, 200, "still serving");
      }));
  });
});
