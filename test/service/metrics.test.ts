/**
 * `GET /metrics` of a running service on the runtime under test: a real scrape passes
 * `promtool check metrics`, carries the store's families, and the PostgreSQL store reports its
 * pool and its failed statements. Without promtool the format check is skipped with a notice,
 * except under CI (test/support/promtool.ts).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { postgresBackend } from "../support/backends.ts";
import { lockPetsTable } from "../support/postgres.ts";
import { promtool, skipWithoutPromtool } from "../support/promtool.ts";
import { type ServiceProcess, targetRuntime } from "../support/server_process.ts";
import { serviceApi } from "../support/service_api.ts";
import { useService, withService } from "../support/service_fixture.ts";

const KEY = "metrics-suite-key";
const api = serviceApi(KEY);
const runtime = targetRuntime();

async function scrape(service: ServiceProcess): Promise<string> {
  const response = await api(service, "/metrics");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  return await response.text();
}

/** The value of the sample line that starts with `series` (name plus labels). */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function createPets(service: ServiceProcess, statuses: (string | undefined)[]) {
  for (const status of statuses) {
    const response = await api(service, "/v1/pets", {
      method: "POST",
      body: JSON.stringify({ name: "Rex", categoryId: 1, status }),
    });
    assert.equal(response.status, 201);
    await response.body?.cancel();
  }
}

describe(`GET /metrics on ${runtime} (JSON-lines store)`, { timeout: 60_000 }, () => {
  const service = useService({ key: KEY, env: { METRICS: "on" } });

  it("a real scrape passes promtool check metrics", { skip: skipWithoutPromtool }, async () => {
    await createPets(service, ["available", "sold", undefined]);
    for (const path of ["/v1/pets?limit=2", "/v1/pets/1", "/v1/nope", "/healthz", "/x/y"]) {
      await (await api(service, path)).body?.cancel();
    }
    const text = await scrape(service);
    const checked = promtool(["check", "metrics"], text);
    assert.equal(checked.status, 0, checked.output);
    assert.equal(checked.output.trim(), "", "promtool lint findings");
  });

  it("reports pets per status, the store's numbers and the standard process metrics", async () => {
    const text = await scrape(service);
    assert.equal(sample(text, 'animal_store_pets{status="available"}'), 1);
    assert.equal(sample(text, 'animal_store_pets{status="sold"}'), 1);
    assert.equal(sample(text, 'animal_store_pets{status="none"}'), 1);
    assert.equal(sample(text, 'animal_store_pets{status="pending"}'), 0);
    assert.ok(sample(text, "animal_store_jsonl_data_file_bytes")! > 100);
    assert.equal(sample(text, "animal_store_jsonl_fsync_duration_seconds_count"), 3);
    assert.equal(sample(text, "animal_store_jsonl_batch_size_sum"), 3);
    assert.equal(sample(text, "animal_store_jsonl_idempotency_keys"), 0);
    assert.ok(sample(text, "animal_store_store_load_seconds")! >= 0);
    assert.ok(sample(text, "process_resident_memory_bytes")! > 1e6);
    assert.ok(sample(text, "process_cpu_seconds_total")! > 0);
    const started = sample(text, "process_start_time_seconds")!;
    assert.ok(Math.abs(started - Date.now() / 1000) < 120, String(started));
    assert.equal(
      sample(
        text,
        'animal_store_http_requests_total{method="GET",route="/v1/pets/{petId}",status="200"}',
      ),
      1,
    );
    assert.equal(sample(text, "animal_store_ready"), 1);
  });

  it("needs a key", async () => {
    const response = await fetch(`${service.url}/metrics`);
    assert.equal(response.status, 401);
    await response.body?.cancel();
  });
});

describe(`GET /metrics on ${runtime} with METRICS=off`, { timeout: 60_000 }, () => {
  it("is an unknown path", async () => {
    await withService({ key: KEY }, async (service) => {
      for (const path of ["/metrics", "/metricz"]) {
        const response = await fetch(`${service.url}${path}`);
        assert.equal(response.status, 404, path);
        assert.equal((await response.json()).code, "not_found");
      }
    });
  });
});

describe(
  `GET /metrics on ${runtime} (PostgreSQL store)`,
  { timeout: 120_000, skip: postgresBackend.skip },
  () => {
    const service = useService({
      key: KEY,
      backend: postgresBackend,
      env: { METRICS: "on", DATABASE_POOL_SIZE: "4", DATABASE_STATEMENT_TIMEOUT_MS: "1500" },
    });

    it("reports pets per status and the pool size, with no JSON-lines families", async () => {
      await createPets(service, ["pending", "pending", undefined]);
      const text = await scrape(service);
      assert.equal(sample(text, 'animal_store_pets{status="pending"}'), 2);
      assert.equal(sample(text, 'animal_store_pets{status="none"}'), 1);
      assert.equal(sample(text, "animal_store_postgres_pool_size"), 4);
      assert.equal(sample(text, "animal_store_postgres_pool_connections_in_use"), 0);
      assert.equal(sample(text, "animal_store_postgres_query_errors_total"), 0);
      assert.doesNotMatch(text, /animal_store_jsonl_/);
      if (!skipWithoutPromtool) {
        const checked = promtool(["check", "metrics"], text);
        assert.equal(checked.status, 0, checked.output);
      }
    });

    it("counts connections held by reads and the statements that fail", async () => {
      // A lock held from outside makes reads wait (and time out): they hold pool connections.
      const lock = await lockPetsTable(service.env.DATABASE_URL);
      try {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const reads = [1, 2, 3].map((id) => api(service, `/v1/pets/${id}`));
        await new Promise((resolve) => setTimeout(resolve, 300));
        const during = await scrape(service);
        assert.equal(sample(during, "animal_store_postgres_pool_connections_in_use"), 3);
        const answers = await Promise.all(reads);
        for (const answer of answers) {
          assert.ok(answer.status >= 500, String(answer.status));
          await answer.body?.cancel();
        }
      } finally {
        await lock.release();
      }
      const text = await scrape(service);
      // Three reads and the blocked scrape's own count timed out.
      assert.ok(sample(text, "animal_store_postgres_query_errors_total")! >= 4, text);
      assert.equal(sample(text, "animal_store_postgres_pool_connections_in_use"), 0);
      assert.equal(sample(text, 'animal_store_pets{status="pending"}'), 2);
    });
  },
);
