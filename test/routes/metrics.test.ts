/** `GET /metrics` in process: key, rate limit, content, route labels and bounded series. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KEY, testApp } from "../support/app.ts";

const METRICS_ON = { METRICS: "on" };

/** The sample lines of a scrape (no comments, no blank line). */
function samples(text: string): string[] {
  return text.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
}

async function scrape(request: ReturnType<typeof testApp>["request"]): Promise<string> {
  const response = await request("/metrics");
  assert.equal(response.status, 200);
  return await response.text();
}

describe("GET /metrics", () => {
  it("answers 401 without a key and 200 in the text format with one", async () => {
    const { request } = testApp({ env: METRICS_ON });
    const refused = await request("/metrics", { key: null });
    assert.equal(refused.status, 401);
    assert.equal((await refused.json()).code, "unauthorized");
    assert.equal((await request("/metrics", { key: "wrong" })).status, 401);
    const response = await request("/metrics");
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    assert.equal(response.headers.get("cache-control"), "no-store");
    const text = await response.text();
    for (
      const family of [
        "animal_store_http_requests_total counter",
        "animal_store_http_request_duration_seconds histogram",
        "animal_store_pets gauge",
        "process_resident_memory_bytes gauge",
        "process_cpu_seconds_total counter",
        "process_start_time_seconds gauge",
        "animal_store_http_requests_in_flight gauge",
        "animal_store_ready gauge",
      ]
    ) assert.ok(text.includes(`# TYPE ${family}\n`), family);
  });

  it("is never rate limited, and counts the 429s of the API", async () => {
    const { request } = testApp({ env: { ...METRICS_ON, RATE_LIMIT: "2" } });
    for (let i = 0; i < 4; i++) await request("/v1/pets");
    assert.equal((await request("/v1/pets")).status, 429);
    for (let i = 0; i < 10; i++) {
      const response = await request("/metrics");
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("ratelimit"), null);
      await response.body?.cancel();
    }
    const text = await scrape(request);
    assert.match(text, /^animal_store_rate_limited_requests_total 3$/m);
    assert.match(
      text,
      /^animal_store_http_requests_total\{method="GET",route="\/v1\/pets",status="429"\} 3$/m,
    );
  });

  it("labels requests by route template, never by raw path", async () => {
    const { request } = testApp({ env: METRICS_ON });
    await request("/v1/pets/12345");
    await request("/v1/pets/abc");
    await request("/v1/pets", {
      method: "POST",
      body: JSON.stringify({ name: "Rex", categoryId: 1 }),
    });
    await request("/v1/no-such-path-789");
    await request("/elsewhere-456", { key: null });
    await request("/v1/keyless-321", { key: null });
    await request("/v1/pets", { method: "PROPFIND" });
    await request("/healthz");
    const text = await scrape(request);
    const lines = samples(text);
    assert.ok(
      lines.includes(
        'animal_store_http_requests_total{method="GET",route="/v1/pets/{petId}",status="404"} 1',
      ),
      text,
    );
    assert.ok(
      lines.includes(
        'animal_store_http_requests_total{method="GET",route="/v1/pets/{petId}",status="400"} 1',
      ),
    );
    assert.ok(
      lines.includes(
        'animal_store_http_requests_total{method="POST",route="/v1/pets",status="201"} 1',
      ),
    );
    assert.ok(
      lines.includes(
        'animal_store_http_requests_total{method="GET",route="unmatched",status="401"} 1',
      ),
    );
    assert.ok(
      lines.includes(
        'animal_store_http_requests_total{method="GET",route="unmatched",status="404"} 2',
      ),
    );
    assert.ok(
      lines.includes(
        'animal_store_http_requests_total{method="OTHER",route="/v1/pets",status="405"} 1',
      ),
    );
    assert.ok(
      lines.includes(
        'animal_store_http_requests_total{method="GET",route="/healthz",status="200"} 1',
      ),
    );
    // Only the label sets: sample values (bytes, seconds) may contain any digits.
    const labelSets = (text.match(/\{[^}]*\}/g) ?? []).join(" ");
    for (const raw of ["12345", "abc", "789", "456", "321", "PROPFIND"]) {
      assert.ok(!labelSets.includes(raw), `raw path or method ${raw} in the labels`);
    }
  });

  it("keeps the number of series when clients send unknown paths and methods", async () => {
    const { request } = testApp({ env: METRICS_ON });
    // Letters after a fixed prefix: never a valid pet id, never a known method.
    const random = () => `x${Math.random().toString(36).slice(2)}`;
    /** 50 requests of fixed kinds (so the same series) on fresh random paths and methods. */
    const round = async () => {
      for (let i = 0; i < 50; i++) {
        const path = [`/v1/${random()}`, `/${random()}/${random()}`, `/v1/pets/${random()}`][i % 3];
        const method = i % 5 === 0 ? random().toUpperCase().replace(/[^A-Z]/g, "") : "GET";
        const response = await request(path, { method, key: i % 2 === 0 ? KEY : null });
        await response.body?.cancel();
      }
    };
    await round();
    const before = samples(await scrape(request));
    await round();
    const after = samples(await scrape(request));
    // The scrapes themselves add one series (the first scrape's count) between the two.
    const withoutScrapes = (lines: string[]) => lines.filter((line) => !line.includes("/metrics"));
    assert.equal(withoutScrapes(after).length, withoutScrapes(before).length);
    assert.ok(before.some((line) => line.includes('route="unmatched"')));
  });

  it("reports pets per status, in flight and readiness at scrape time", async () => {
    const { request, store } = testApp({ env: METRICS_ON });
    for (const status of ["available", "available", "sold", undefined]) {
      await request("/v1/pets", {
        method: "POST",
        body: JSON.stringify({ name: "P", categoryId: 1, status }),
      });
    }
    const lines = samples(await scrape(request));
    for (
      const expected of [
        'animal_store_pets{status="available"} 2',
        'animal_store_pets{status="pending"} 0',
        'animal_store_pets{status="sold"} 1',
        'animal_store_pets{status="none"} 1',
        "animal_store_http_requests_in_flight 1",
        "animal_store_ready 1",
      ]
    ) assert.ok(lines.includes(expected), expected);
    // A store that cannot answer keeps its last numbers; the scrape still succeeds.
    store.available = false;
    const outage = samples(await scrape(request));
    assert.ok(outage.includes('animal_store_pets{status="available"} 2'));
    assert.ok(outage.includes("animal_store_ready 0"));
  });

  it("is served while the store loads, without pets yet", async () => {
    const { request } = testApp({ env: METRICS_ON, storeLoaded: false });
    const text = await scrape(request);
    assert.match(text, /^animal_store_ready 0$/m);
    assert.doesNotMatch(text, /animal_store_pets/);
  });

  it("answers HEAD like GET, and 405 with Allow for other methods", async () => {
    const { request } = testApp({ env: METRICS_ON });
    const head = await request("/metrics", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    const post = await request("/metrics", { method: "POST" });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD, OPTIONS");
  });

  it("is an unknown path with METRICS=off, answered as any other unknown root path", async () => {
    for (const env of [{}, { METRICS: "off" }] as Record<string, string>[]) {
      const { request } = testApp({ env });
      const metrics = await request("/metrics", { key: null });
      const other = await request("/metricz", { key: null });
      assert.equal(metrics.status, 404);
      assert.equal(metrics.status, other.status);
      assert.deepEqual(
        [...metrics.headers.keys()].filter((name) => name !== "x-request-id"),
        [...other.headers.keys()].filter((name) => name !== "x-request-id"),
      );
      assert.equal((await metrics.json()).code, (await other.json()).code);
      assert.equal((await request("/metrics")).status, 404);
    }
  });

  it("serves /metrics at the root also when BASE_PATH is empty", async () => {
    const { request } = testApp({ env: { ...METRICS_ON, BASE_PATH: "" } });
    assert.equal((await request("/metrics", { key: null })).status, 401);
    await request("/pets/7");
    assert.match(await scrape(request), /route="\/pets\/\{petId\}",status="404"\} 1/);
  });
});
