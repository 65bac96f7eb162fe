/**
 * Clauses of the contract pinned on the handler with no socket: the 500 path, what never reaches
 * the log, pagination edges, the deprecated route's fixed date and headers on every status, and
 * the request log line. Each test is named after the clause it pins.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SUNSET_AT } from "../src/http/deprecation.ts";
import { KEY, testApp } from "./support/app.ts";
import { nextLink } from "./support/link_header.ts";
import { clockBeforeSunset } from "./support/sunset.ts";

/** The documented deprecation date, 2026-01-01T00:00:00Z, written out: it must never move. */
const DEPRECATION = "@1767225600";
const SUNSET = "Thu, 05 Dec 2030 00:00:00 GMT";
const rex = '{"name":"Rex","categoryId":1}';

async function seed(request: ReturnType<typeof testApp>["request"], count: number) {
  for (let i = 0; i < count; i++) {
    const response = await request("/v1/pets", {
      method: "POST",
      body: `{"name":"pet ${i}","categoryId":${i}}`,
    });
    assert.equal(response.status, 201);
  }
}

function requestLines(log: ReturnType<typeof testApp>["log"]) {
  return log.lines.filter((line) => line.msg === "request");
}

describe("the 500 path", () => {
  it("a store that throws answers 500 internal_error without stack, path or message, and logs the request id and the stack", async () => {
    const { request, store, log } = testApp();
    const secret = "disk exploded at /srv/animal-store/data/pets.jsonl";
    const throwing = () => {
      throw new TypeError(secret);
    };
    Object.assign(store, { get: throwing, listJson: throwing, create: throwing });
    const cases: [string, RequestInit][] = [
      ["/v1/pets/1", {}],
      ["/v1/pets", {}],
      ["/v1/pets", { method: "POST", body: rex }],
    ];
    for (const [index, [path, init]] of cases.entries()) {
      const requestId = `trace-500-${index}`;
      const response = await request(path, {
        ...init,
        headers: { "x-request-id": requestId },
      });
      const text = await response.text();
      assert.equal(response.status, 500, path);
      const body = JSON.parse(text);
      assert.equal(body.code, "internal_error");
      assert.equal(body.status, 500);
      for (const leak of ["disk exploded", "/srv/", "pets.jsonl", "TypeError", "    at ", ".ts:"]) {
        assert.ok(!text.includes(leak), `${path}: body leaks ${JSON.stringify(leak)}: ${text}`);
      }
      const logged = log.lines.find((line) =>
        line.level === "error" && line.requestId === requestId
      );
      assert.ok(logged !== undefined, `${path}: an error line with the request id`);
      const error = String(logged.error);
      assert.ok(error.includes(secret), "the log has the message");
      assert.match(error, /\n\s+at /, "the log has the stack");
    }
  });
});

describe("what never reaches the log", () => {
  it("no key and no request body reaches the log on 201, 400, 401, 413 and 422 paths", async () => {
    const { request, log } = testApp({ env: { MAX_BODY_BYTES: "1024" } });
    const wrongKey = "wrong-key-Secret0";
    const cases: [RequestInit & { key?: string | null }, number][] = [
      [{ method: "POST", body: '{"name":"BodySecret1","categoryId":1}' }, 201],
      [{ method: "POST", body: '{"name":"BodySecret2",' }, 400],
      [{ method: "POST", body: '{"name":"BodySecret3","categoryId":1,"BodySecret4":1}' }, 400],
      [{ method: "POST", body: '{"name":"BodySecret5","categoryId":1}', key: wrongKey }, 401],
      [{ method: "POST", body: '{"name":"BodySecret6","categoryId":1}', key: null }, 401],
      [{ method: "POST", body: `{"name":"BodySecret7${"x".repeat(2000)}","categoryId":1}` }, 413],
      [{
        method: "POST",
        body: '{"name":"BodySecret8","categoryId":1}',
        headers: { "idempotency-key": "IdemSecret9" },
      }, 201],
      [{
        method: "POST",
        body: '{"name":"BodySecret10","categoryId":1}',
        headers: { "idempotency-key": "IdemSecret9" },
      }, 422],
    ];
    for (const [init, status] of cases) {
      const response = await request("/v1/pets", init);
      assert.equal(response.status, status, String(init.body).slice(0, 60));
    }
    const text = JSON.stringify(log.lines);
    for (const secret of [KEY, wrongKey, "BodySecret", "IdemSecret"]) {
      assert.ok(!text.includes(secret), `${secret} in the log: ${text.slice(0, 400)}`);
    }
    assert.equal(requestLines(log).length, cases.length);
  });
});

describe("pagination edges", () => {
  it("GET /pets?limit=100 returns 100 pets and a next link when more exist", async () => {
    const { request } = testApp();
    await seed(request, 101);
    const response = await request("/v1/pets?limit=100");
    const pets = await response.json();
    assert.equal(pets.length, 100);
    assert.equal(pets[99].id, 100);
    const next = nextLink(response);
    assert.match(next ?? "", /^\/v1\/pets\?limit=100&cursor=/);
    const last = await (await request(next!)).json();
    assert.deepEqual(last.map((pet: { id: number }) => pet.id), [101]);
  });

  it("the next link of a request without limit carries the default or no limit, and walking it returns every pet once", async () => {
    const { request } = testApp();
    await seed(request, 45);
    const seen: number[] = [];
    let next: string | undefined = "/v1/pets";
    let pages = 0;
    while (next !== undefined) {
      const response: Response = await request(next);
      assert.equal(response.status, 200, next);
      const pets = await response.json();
      assert.ok(pets.length > 0 && pets.length <= 20, `page of ${pets.length}`);
      seen.push(...pets.map((pet: { id: number }) => pet.id));
      next = nextLink(response);
      if (next !== undefined) {
        const limit = new URL(next, "http://x").searchParams.getAll("limit");
        assert.ok(limit.length === 0 || (limit.length === 1 && limit[0] === "20"), next);
      }
      pages++;
    }
    assert.equal(pages, 3);
    assert.deepEqual(seen, Array.from({ length: 45 }, (_, i) => i + 1));
  });
});

describe("the deprecated route", () => {
  it("the Deprecation date is one fixed value, the same on every request whatever the clock", async () => {
    const clocks = [Date.UTC(2026, 5, 1), Date.UTC(2029, 0, 1), SUNSET_AT - 1, SUNSET_AT];
    for (const now of clocks) {
      const { request } = testApp({ clock: () => now });
      await seed(request, 1);
      for (const path of ["/v1/pets/1", "/v1/pets/1", "/v1/pets/2"]) {
        const response = await request(path);
        assert.equal(response.headers.get("deprecation"), DEPRECATION, `${path} at ${now}`);
        assert.equal(response.headers.get("sunset"), SUNSET);
      }
    }
  });

  it("429 and 503 answers on the deprecated path carry the deprecation headers", async () => {
    const assertDeprecated = (response: Response, status: number) => {
      assert.equal(response.status, status);
      assert.equal(response.headers.get("deprecation"), DEPRECATION);
      assert.equal(response.headers.get("sunset"), SUNSET);
      assert.equal(response.headers.get("link"), '</v1/pets>; rel="successor-version"');
    };
    const limited = testApp({ env: { RATE_LIMIT: "1" } });
    assertDeprecated(await limited.request("/v1/pets/1"), 404);
    assertDeprecated(await limited.request("/v1/pets/1"), 429);
    assertDeprecated(await testApp({ storeLoaded: false }).request("/v1/pets/1"), 503);
    const lost = testApp();
    lost.store.available = false;
    assertDeprecated(await lost.request("/v1/pets/1"), 503);
    const draining = testApp();
    draining.app.drain();
    assertDeprecated(await draining.request("/v1/pets/1"), 503);
  });

  it("app tests run on a clock that stands before the sunset whatever the real date", () => {
    for (
      const real of [Date.UTC(2026, 10, 1), Date.UTC(2030, 11, 4), SUNSET_AT, Date.UTC(2041, 2, 3)]
    ) {
      const clock = clockBeforeSunset(() => real);
      assert.ok(clock() < SUNSET_AT, new Date(real).toISOString());
      const year = 365 * 24 * 3600 * 1000;
      assert.ok(clock() >= Math.min(real, SUNSET_AT - 2 * year), "not far from the real date");
    }
    let now = Date.UTC(2040, 0, 1);
    const moving = clockBeforeSunset(() => now);
    const before = moving();
    now += 5_000;
    assert.equal(moving() - before, 5_000, "it runs like the real clock");
  });
});

describe("the request log", () => {
  it("logs exactly one request line per request, whatever its outcome", async () => {
    const { request, log } = testApp({ env: { MAX_BODY_BYTES: "1024", RATE_LIMIT: "10" } });
    const cases: [string, RequestInit & { key?: string | null }][] = [
      ["/v1/pets", { method: "POST", body: rex }],
      ["/v1/pets", {}],
      ["/v1/pets", { method: "HEAD" }],
      ["/v1/pets", { method: "OPTIONS", key: null }],
      ["/v1/pets/1", {}],
      ["/v1/pets/999", {}],
      ["/v1/pets/abc", {}],
      ["/v1/pets", { key: null }],
      ["/v1/pets", { key: "wrong" }],
      ["/v1/pets", { method: "DELETE" }],
      ["/v1/nowhere", {}],
      ["/v1/pets", { method: "POST", body: "x".repeat(2000) }],
      ["/v1/pets", { method: "POST", body: "{}", headers: { "content-type": "text/plain" } }],
      ["/healthz", {}],
      ["/v1/openapi.json", { key: null }],
    ];
    const ids: string[] = [];
    for (const [path, init] of cases) {
      ids.push((await request(path, init)).headers.get("x-request-id")!);
    }
    // Over the rate limit (10 keyed requests above); then a 500 on an app without a limit.
    ids.push((await request("/v1/pets")).headers.get("x-request-id")!);
    const limitless = testApp();
    Object.assign(limitless.store, {
      listJson: () => {
        throw new Error("boom");
      },
    });
    const failed = await limitless.request("/v1/pets");
    assert.equal(failed.status, 500);
    assert.equal(requestLines(limitless.log).length, 1, "one line for a 500");
    const lines = requestLines(log);
    assert.equal(lines.length, ids.length, JSON.stringify(lines.map((line) => line.status)));
    assert.deepEqual(lines.map((line) => line.requestId), ids);
    assert.ok(lines.some((line) => line.status === 429), "one of them was limited");
  });

  it("a request without X-Request-Id gets a generated one, in the header and the log line", async () => {
    const { request, log } = testApp();
    const seen = new Set<string>();
    for (const path of ["/v1/pets", "/v1/pets/1", "/healthz", "/nowhere"]) {
      const response = await request(path);
      const id = response.headers.get("x-request-id") ?? "";
      assert.match(id, /^[A-Za-z0-9._:=-]{1,200}$/, path);
      assert.ok(!seen.has(id), "a new id per request");
      seen.add(id);
      assert.equal(requestLines(log).at(-1)!.requestId, id, path);
    }
  });
});
