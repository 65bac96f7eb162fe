import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { removeDotSegments, splitUrl } from "../src/http/url.ts";
import { KEY, OTHER_KEY, testApp } from "./support/app.ts";
import { nextLink } from "./support/link_header.ts";

async function errorOf(response: Response) {
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  const body = await response.json();
  assert.equal(typeof body.code, "string");
  assert.equal(typeof body.message, "string");
  assert.equal(body.status, response.status);
  return body;
}

const rex = JSON.stringify({ name: "Rex", categoryId: 1, status: "available" });

describe("authentication", () => {
  it("GET /v1/pets without a key returns 401 unauthorized with a bare Bearer challenge", async () => {
    const { request } = testApp();
    const response = await request("/v1/pets", { key: null });
    assert.equal(response.status, 401);
    assert.equal((await errorOf(response)).code, "unauthorized");
    assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="animal-store"');
  });

  it('a wrong key returns 401 with error="invalid_token"', async () => {
    const { request } = testApp();
    const response = await request("/v1/pets", { key: "nope" });
    assert.equal(response.status, 401);
    assert.equal(
      response.headers.get("www-authenticate"),
      'Bearer realm="animal-store", error="invalid_token"',
    );
  });

  it("a non-Bearer Authorization header counts as no key", async () => {
    const { request } = testApp();
    for (const authorization of ["Basic abc", "Bearer", "Bearer ", KEY]) {
      const response = await request("/v1/pets", { headers: { authorization } });
      assert.equal(response.status, 401, authorization);
      assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="animal-store"');
    }
  });

  it("every configured key is accepted", async () => {
    const { request } = testApp();
    assert.equal((await request("/v1/pets", { key: OTHER_KEY })).status, 200);
    assert.equal(
      (await request("/v1/pets", { headers: { authorization: `bearer ${KEY}` } })).status,
      200,
    );
  });

  it("the key is checked before anything else: no 400, 404, 405, 413 or 415 without it", async () => {
    const { request } = testApp({ env: { MAX_BODY_BYTES: "10" } });
    const cases: [string, RequestInit][] = [
      ["/v1/pets?limit=0", {}],
      ["/v1/nowhere", {}],
      ["/v1/pets/abc", {}],
      ["/v1/pets", { method: "DELETE" }],
      ["/v1/pets", {
        method: "POST",
        body: "x".repeat(100),
        headers: { "content-type": "application/json" },
      }],
      ["/v1/pets", { method: "POST", body: "{}", headers: { "content-type": "text/plain" } }],
    ];
    for (const [path, init] of cases) {
      const response = await request(path, { ...init, key: null });
      assert.equal(response.status, 401, `${init.method ?? "GET"} ${path}`);
    }
  });

  it("authenticated responses carry Cache-Control: no-store, the cacheable GETs private, no-cache", async () => {
    const { request } = testApp();
    assert.equal((await request("/v1/pets")).headers.get("cache-control"), "private, no-cache");
    assert.equal((await request("/v1/pets/1")).headers.get("cache-control"), "no-store");
  });

  it("every answer on an API path behind the key but the cacheable 200s carries Cache-Control: no-store, 401 included", async () => {
    const { request, store } = testApp({ env: { MAX_BODY_BYTES: "200" } });
    // A 401 stored by a shared cache would be served to the next client, key or not.
    const keyed = (key: string) => ({ "idempotency-key": key });
    const other = JSON.stringify({ name: "Other", categoryId: 2 });
    const cases: [string, RequestInit & { key?: string | null }, number][] = [
      ["/v1/pets", { key: null }, 401],
      ["/v1/pets", { key: "not-a-key" }, 401],
      ["/v1/nowhere", { key: null }, 401],
      ["/v1/pets", { method: "POST", body: rex }, 201],
      ["/v1/pets", { method: "POST", body: rex, headers: keyed("cache-1") }, 201],
      ["/v1/pets", { method: "POST", body: rex, headers: keyed("cache-1") }, 201], // replayed
      ["/v1/pets", { method: "POST", body: other, headers: keyed("cache-1") }, 422],
      ["/v1/pets/99", { method: "HEAD" }, 404],
      ["/v1/pets/99", {}, 404],
      ["/v1/nowhere", {}, 404],
      ["/v1/pets", { method: "DELETE" }, 405],
      ["/v1/pets?limit=0", {}, 400],
      ["/v1/pets", { method: "POST", body: "x".repeat(201) }, 413],
      ["/v1/pets", { method: "POST", body: rex, headers: { "content-type": "text/plain" } }, 415],
    ];
    const check = (response: Response, label: string, status: number) => {
      assert.equal(response.status, status, label);
      assert.equal(response.headers.get("cache-control"), "no-store", label);
    };
    for (const [path, init, status] of cases) {
      const label = `${init.method ?? "GET"} ${path} (key ${
        init.key === undefined ? "ok" : "bad"
      }, ${JSON.stringify(init.headers ?? {})})`;
      check(await request(path, init), label, status);
    }
    // 409: a repeat while the first request with its key is still being written.
    let open!: () => void;
    store.writeGate = new Promise((resolve) => (open = resolve));
    const first = request("/v1/pets", { method: "POST", body: rex, headers: keyed("cache-2") });
    const inFlight = request("/v1/pets", { method: "POST", body: rex, headers: keyed("cache-2") });
    check(await inFlight, "POST /v1/pets while its key is in flight", 409);
    open();
    check(await first, "POST /v1/pets once written", 201);
  });
});

describe("POST /v1/pets", () => {
  it("creates a pet: 201, the Pet, Location", async () => {
    const { request } = testApp();
    const response = await request("/v1/pets", { method: "POST", body: rex });
    assert.equal(response.status, 201);
    assert.deepEqual(await response.json(), {
      id: 1,
      name: "Rex",
      categoryId: 1,
      status: "available",
    });
    assert.equal(response.headers.get("location"), "/v1/pets/1");
  });

  it("keeps an int64 categoryId beyond 2^53 exactly", async () => {
    const { request } = testApp();
    for (const digits of ["9007199254740993", "9223372036854775807", "-9223372036854775808"]) {
      const response = await request("/v1/pets", {
        method: "POST",
        body: `{"name":"Big","categoryId":${digits}}`,
      });
      assert.equal(response.status, 201);
      const text = await response.text();
      assert.ok(text.includes(`"categoryId":${digits}`), text);
      const id = JSON.parse(text).id;
      const fetched = await (await request(`/v1/pets/${id}`)).text();
      assert.ok(fetched.includes(`"categoryId":${digits}`), fetched);
    }
  });

  it("stores a pet without status without inventing one", async () => {
    const { request } = testApp();
    const response = await request("/v1/pets", {
      method: "POST",
      body: '{"name":"Tom","categoryId":2}',
    });
    assert.deepEqual(await response.json(), { id: 1, name: "Tom", categoryId: 2 });
    assert.deepEqual(await (await request("/v1/pets?status=available")).json(), []);
    assert.equal((await (await request("/v1/pets")).json()).length, 1);
  });

  it("stores the name exactly as sent (no trimming), counting code points", async () => {
    const { request } = testApp();
    for (const name of ["  padded ", "😀".repeat(200), "Ünïcødé 名前"]) {
      const response = await request("/v1/pets", {
        method: "POST",
        body: JSON.stringify({ name, categoryId: 1 }),
      });
      assert.equal(response.status, 201, name);
      assert.equal((await response.json()).name, name);
    }
  });

  it("refuses invalid NewPets with 400 validation_failed naming the field", async () => {
    const { request, store } = testApp();
    const cases: [string, string][] = [
      ['{"categoryId":1}', "name"],
      ['{"name":"a"}', "categoryId"],
      ['{"name":"","categoryId":1}', "name"],
      ['{"name":"   ","categoryId":1}', "name"],
      [JSON.stringify({ name: "😀".repeat(201), categoryId: 1 }), "name"],
      ['{"name":"a\\u0000b","categoryId":1}', "name"],
      ['{"name":"a\\u0085b","categoryId":1}', "name"],
      ['{"name":"\\ud800","categoryId":1}', "name"],
      ['{"name":5,"categoryId":1}', "name"],
      ['{"name":"a","categoryId":1.5}', "categoryId"],
      ['{"name":"a","categoryId":1.0}', "categoryId"],
      ['{"name":"a","categoryId":1e3}', "categoryId"],
      ['{"name":"a","categoryId":-0}', "categoryId"],
      ['{"name":"a","categoryId":"1"}', "categoryId"],
      ['{"name":"a","categoryId":9223372036854775808}', "categoryId"],
      ['{"name":"a","categoryId":-9223372036854775809}', "categoryId"],
      ['{"name":"a","categoryId":1,"status":null}', "status"],
      ['{"name":"a","categoryId":1,"status":"lost"}', "status"],
      ['{"name":"a","categoryId":1,"color":"red"}', "color"],
      ['{"name":"a","categoryId":1,"__proto__":{"x":1}}', "__proto__"],
      ['{"name":"a","categoryId":1,"id":7}', "id"],
    ];
    for (const [body, field] of cases) {
      const response = await request("/v1/pets", { method: "POST", body });
      assert.equal(response.status, 400, body);
      const error = await errorOf(response);
      assert.equal(error.code, "validation_failed", body);
      assert.ok(error.message.includes(field), `${body}: ${error.message}`);
      assert.ok(
        error.details.some((detail: { path: string }) => detail.path === `/${field}`),
        body,
      );
    }
    assert.equal(store.pets.length, 0);
  });

  it("refuses names with U+007F or U+009F, the ends of the C1 range, as validation_failed on /name", async () => {
    const { request, store } = testApp();
    for (const name of ["a\u007fb", "\u007f", "a\u009fb", "\u009f"]) {
      const response = await request("/v1/pets", {
        method: "POST",
        body: JSON.stringify({ name, categoryId: 1 }),
      });
      const label = JSON.stringify(name);
      assert.equal(response.status, 400, label);
      const error = await errorOf(response);
      assert.equal(error.code, "validation_failed", label);
      assert.ok(
        error.details.some((detail: { path: string }) => detail.path === "/name"),
        label,
      );
    }
    assert.equal(store.pets.length, 0);
  });

  it("refuses a near-limit name with a control character in linear time (no ReDoS)", async () => {
    const { request } = testApp();
    /** The fastest of three refusals of a name of `length` characters ending in U+0001. */
    const fastest = async (length: number) => {
      const body = JSON.stringify({ name: "a".repeat(length) + "\u0001", categoryId: 1 });
      let best = Infinity;
      for (let run = 0; run < 3; run++) {
        const started = performance.now();
        const response = await request("/v1/pets", { method: "POST", body });
        best = Math.min(best, performance.now() - started);
        assert.equal(response.status, 400);
      }
      return best;
    };
    // Compared with itself rather than a wall-clock limit, so a loaded machine cannot fail it:
    // 8 times the input costs about 8 times the time when linear, 64 times when quadratic (a
    // backtracking pattern took seconds here).
    const small = await fastest(8_000);
    const large = await fastest(64_000);
    assert.ok(large < 24 * Math.max(small, 0.5), `${large} ms vs ${small} ms: not linear`);
  });

  it("refuses malformed JSON and non-objects with 400 invalid_body", async () => {
    const { request, store } = testApp();
    for (
      const body of [
        "",
        "{",
        "[]",
        "null",
        "42",
        '"pet"',
        '{"name":"a","name":"b","categoryId":1}',
        "{'a':1}",
        '{"name":"a","categoryId":1}x',
      ]
    ) {
      const response = await request("/v1/pets", { method: "POST", body });
      assert.equal(response.status, 400, body);
      assert.equal((await errorOf(response)).code, "invalid_body", body);
    }
    const invalidUtf8 = new Uint8Array([0x7b, 0x22, 0x6e, 0xff, 0x22, 0x7d]);
    const response = await request("/v1/pets", {
      method: "POST",
      body: invalidUtf8,
      headers: { "content-type": "application/json" },
    });
    assert.equal((await errorOf(response)).code, "invalid_body");
    assert.equal(store.pets.length, 0);
  });

  it("returns 415 for a content type other than JSON, and accepts a charset parameter", async () => {
    const { request } = testApp();
    for (
      const contentType of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"]
    ) {
      const response = await request("/v1/pets", {
        method: "POST",
        body: rex,
        headers: { "content-type": contentType },
      });
      assert.equal(response.status, 415, contentType);
      assert.equal((await errorOf(response)).code, "unsupported_media_type");
    }
    const missing = await request("/v1/pets", {
      method: "POST",
      body: new TextEncoder().encode(rex),
    });
    assert.equal(missing.status, 415);
    const withCharset = await request("/v1/pets", {
      method: "POST",
      body: rex,
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    assert.equal(withCharset.status, 201);
  });

  it("returns 413 for a body over MAX_BODY_BYTES, declared or streamed", async () => {
    const { request, store } = testApp({ env: { MAX_BODY_BYTES: "100" } });
    const big = JSON.stringify({ name: "x".repeat(200), categoryId: 1 });
    const declared = await request("/v1/pets", { method: "POST", body: big });
    assert.equal(declared.status, 413);
    assert.equal((await errorOf(declared)).code, "payload_too_large");
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const streamed = await request("/v1/pets", {
      method: "POST",
      body: stream,
      duplex: "half",
      headers: { "content-type": "application/json" },
    });
    assert.equal(streamed.status, 413);
    assert.equal(store.pets.length, 0);
    const exact = JSON.stringify({ name: "x".repeat(100 - 30), categoryId: 1 }).padEnd(100, " ");
    assert.equal(exact.length, 100);
    assert.equal((await request("/v1/pets", { method: "POST", body: exact })).status, 201);
  });

  it("answers 503 unavailable when the store cannot write", async () => {
    const { request, store } = testApp();
    store.failWrites = true;
    const response = await request("/v1/pets", { method: "POST", body: rex });
    assert.equal(response.status, 503);
    assert.equal((await errorOf(response)).code, "unavailable");
  });
});

describe("Idempotency-Key", () => {
  const post = (
    request: ReturnType<typeof testApp>["request"],
    body: string,
    key: string,
    apiKey = KEY,
  ) =>
    request("/v1/pets", { method: "POST", body, headers: { "idempotency-key": key }, key: apiKey });

  it("a repeat with the same body returns the original 201 with Idempotent-Replayed", async () => {
    const { request, store } = testApp();
    const first = await post(request, rex, "k-1");
    assert.equal(first.status, 201);
    assert.equal(first.headers.get("idempotent-replayed"), null);
    const reordered = JSON.stringify({ status: "available", categoryId: 1, name: "Rex" });
    const again = await post(request, ` ${reordered} `, "k-1");
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(again.headers.get("location"), first.headers.get("location"));
    assert.deepEqual(await again.json(), await first.json());
    assert.equal(store.pets.length, 1);
  });

  it("the same key with a different body is 422 idempotency_key_reused", async () => {
    const { request } = testApp();
    await post(request, rex, "k-2");
    const response = await post(request, JSON.stringify({ name: "Other", categoryId: 1 }), "k-2");
    assert.equal(response.status, 422);
    assert.equal((await errorOf(response)).code, "idempotency_key_reused");
  });

  it("keys are scoped per API key", async () => {
    const { request, store } = testApp();
    await post(request, rex, "k-3", KEY);
    const other = await post(request, rex, "k-3", OTHER_KEY);
    assert.equal(other.headers.get("idempotent-replayed"), null);
    assert.equal(store.pets.length, 2);
  });

  it("a repeat while the first is still being written is 409 idempotency_key_in_flight", async () => {
    const { request, store } = testApp();
    let open!: () => void;
    store.writeGate = new Promise((resolve) => (open = resolve));
    const first = post(request, rex, "k-4");
    const second = await post(request, rex, "k-4");
    assert.equal(second.status, 409);
    assert.equal((await errorOf(second)).code, "idempotency_key_in_flight");
    open();
    assert.equal((await first).status, 201);
  });

  it("a key of exactly 255 visible ASCII characters is accepted and replayed", async () => {
    const { request, store } = testApp();
    const visible = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i))
      .join("");
    const key = visible.repeat(3).slice(0, 255);
    assert.equal(key.length, 255);
    assert.equal((await post(request, rex, key)).status, 201);
    const again = await post(request, rex, key);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(store.pets.length, 1);
  });

  it("a malformed key is 400 validation_failed naming the header", async () => {
    const { request } = testApp();
    for (const key of ["", "x".repeat(256), "has space", "é"]) {
      const response = await request("/v1/pets", {
        method: "POST",
        body: rex,
        headers: { "idempotency-key": key },
      });
      assert.equal(response.status, 400, JSON.stringify(key));
      const error = await errorOf(response);
      assert.equal(error.code, "validation_failed");
      assert.match(error.message, /Idempotency-Key/);
    }
  });
});

describe("GET /v1/pets", () => {
  async function seed(request: ReturnType<typeof testApp>["request"], count: number) {
    const statuses = ["available", "pending", "sold", undefined];
    for (let i = 0; i < count; i++) {
      const status = statuses[i % 4];
      await request("/v1/pets", {
        method: "POST",
        body: JSON.stringify({
          name: `pet ${i + 1}`,
          categoryId: i,
          ...(status ? { status } : {}),
        }),
      });
    }
  }

  it("returns a JSON array, default page of 20, in ascending id order", async () => {
    const { request } = testApp();
    await seed(request, 25);
    const response = await request("/v1/pets");
    assert.equal(response.status, 200);
    const pets = await response.json();
    assert.ok(Array.isArray(pets));
    assert.equal(pets.length, 20);
    assert.deepEqual(
      pets.map((pet: { id: number }) => pet.id),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it("filters by status", async () => {
    const { request } = testApp();
    await seed(request, 12);
    const sold = await (await request("/v1/pets?status=sold")).json();
    assert.deepEqual(sold.map((pet: { id: number }) => pet.id), [3, 7, 11]);
    assert.ok(sold.every((pet: { status: string }) => pet.status === "sold"));
  });

  it("walks every page through Link rel=next, each pet exactly once, no empty last page", async () => {
    const { request } = testApp();
    await seed(request, 20);
    const seen: number[] = [];
    let next: string | undefined = "/v1/pets?limit=5";
    let pages = 0;
    while (next !== undefined) {
      const response: Response = await request(next);
      const pets = await response.json();
      assert.ok(pets.length > 0, "no empty page");
      seen.push(...pets.map((pet: { id: number }) => pet.id));
      next = nextLink(response);
      if (next !== undefined) assert.match(next, /^\/v1\/pets\?limit=5&cursor=/);
      pages++;
    }
    assert.equal(pages, 4);
    assert.deepEqual(seen, Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it("a walk with a status filter sees pets created during the walk at the end", async () => {
    const { request } = testApp();
    await seed(request, 8); // available: 1, 5
    const first = await request("/v1/pets?status=available&limit=1");
    assert.deepEqual((await first.json()).map((pet: { id: number }) => pet.id), [1]);
    await request("/v1/pets", { method: "POST", body: rex }); // id 9, available
    const seen: number[] = [1];
    let next = nextLink(first);
    assert.match(next!, /status=available/);
    while (next !== undefined) {
      const response = await request(next);
      seen.push(...(await response.json()).map((pet: { id: number }) => pet.id));
      next = nextLink(response);
    }
    assert.deepEqual(seen, [1, 5, 9]);
  });

  it("uses PUBLIC_URL for every URL it puts in a header: Link, Location, successor", async () => {
    const { request } = testApp({ env: { PUBLIC_URL: "https://pets.example.com" } });
    await seed(request, 3);
    const response = await request("/v1/pets?limit=2");
    assert.match(nextLink(response)!, /^https:\/\/pets\.example\.com\/v1\/pets\?limit=2&cursor=/);
    const created = await request("/v1/pets", { method: "POST", body: rex });
    assert.equal(created.headers.get("location"), "https://pets.example.com/v1/pets/4");
    assert.equal(
      (await request("/v1/pets/4")).headers.get("link"),
      '<https://pets.example.com/v1/pets>; rel="successor-version"',
    );
  });

  it("returns 400 invalid_query for bad limit, status or cursor", async () => {
    const { request } = testApp();
    await seed(request, 3);
    const good = nextLink(await request("/v1/pets?limit=1"))!;
    const cursor = new URLSearchParams(good.split("?")[1]).get("cursor")!;
    const altered = cursor.slice(0, -1) + (cursor.endsWith("A") ? "B" : "A");
    const bad = [
      "limit=0",
      "limit=101",
      "limit=abc",
      "limit=1.5",
      "limit=",
      "limit=1&limit=2",
      "limit=-1",
      "limit=01",
      "limit=%201",
      "status=",
      "status=lost",
      "status=sold&status=sold",
      "status=SOLD",
      "cursor=",
      "cursor=abc",
      `cursor=${altered}`,
      `cursor=${cursor}&status=sold`,
    ];
    for (const query of bad) {
      const response = await request(`/v1/pets?${query}`);
      assert.equal(response.status, 400, query);
      assert.equal((await errorOf(response)).code, "invalid_query", query);
    }
    assert.equal((await request(`/v1/pets?limit=1&cursor=${cursor}`)).status, 200);
    assert.equal((await request("/v1/pets?limit=100")).status, 200);
  });
});

describe("GET /v1/pets/{petId} (deprecated)", () => {
  const SUNSET = "Thu, 05 Dec 2030 00:00:00 GMT";

  function assertDeprecated(response: Response) {
    assert.match(response.headers.get("deprecation") ?? "", /^@\d+$/);
    const deprecatedAt = Number(response.headers.get("deprecation")!.slice(1)) * 1000;
    assert.ok(deprecatedAt <= Date.parse(SUNSET));
    assert.equal(response.headers.get("sunset"), SUNSET);
    assert.match(response.headers.get("link") ?? "", /<\/v1\/pets>; rel="successor-version"/);
  }

  it("returns the pet with deprecation headers", async () => {
    const { request } = testApp();
    await request("/v1/pets", { method: "POST", body: rex });
    const response = await request("/v1/pets/1");
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      id: 1,
      name: "Rex",
      categoryId: 1,
      status: "available",
    });
    assertDeprecated(response);
  });

  it("carries the deprecation headers on 401, 404, 405 and 400 too", async () => {
    const { request } = testApp();
    const cases: [string, RequestInit & { key?: string | null }, number][] = [
      ["/v1/pets/1", { key: null }, 401],
      ["/v1/pets/99", {}, 404],
      ["/v1/pets/1", { method: "DELETE" }, 405],
      ["/v1/pets/abc", {}, 400],
    ];
    for (const [path, init, status] of cases) {
      const response = await request(path, init);
      assert.equal(response.status, status, path);
      assertDeprecated(response);
    }
  });

  it("carries the deprecation headers on OPTIONS and HEAD too", async () => {
    const { request } = testApp();
    await request("/v1/pets", { method: "POST", body: rex });
    const options = await request("/v1/pets/1", { method: "OPTIONS", key: null });
    assert.equal(options.status, 204);
    assertDeprecated(options);
    for (const path of ["/v1/pets/1", "/v1/pets/99"]) {
      const head = await request(path, { method: "HEAD" });
      assert.equal(head.status, path === "/v1/pets/1" ? 200 : 404, path);
      assertDeprecated(head);
    }
  });

  it("returns 400 invalid_path for ids that are not int64 from 1, 404 for unknown ones", async () => {
    const { request } = testApp();
    for (const id of ["0", "-1", "abc", "1.5", "01", "9223372036854775808", "1e3", "%201"]) {
      const response = await request(`/v1/pets/${id}`);
      assert.equal(response.status, 400, id);
      assert.equal((await errorOf(response)).code, "invalid_path");
    }
    for (const id of ["5", "9223372036854775807", "9007199254740993"]) {
      const response = await request(`/v1/pets/${id}`);
      assert.equal(response.status, 404, id);
      assert.equal((await errorOf(response)).code, "not_found");
    }
  });

  it("answers 410 gone from the sunset instant on", async () => {
    const { request } = testApp({ clock: () => Date.parse(SUNSET) });
    await request("/v1/pets", { method: "POST", body: rex });
    const response = await request("/v1/pets/1");
    assert.equal(response.status, 410);
    assert.equal((await errorOf(response)).code, "gone");
    assertDeprecated(response);
    const before = testApp({ clock: () => Date.parse(SUNSET) - 1 });
    await before.request("/v1/pets", { method: "POST", body: rex });
    assert.equal((await before.request("/v1/pets/1")).status, 200);
  });

  it("answers 410 gone to every method from the sunset on, OPTIONS without a key", async () => {
    const { request } = testApp({ clock: () => Date.parse(SUNSET) });
    await request("/v1/pets", { method: "POST", body: rex });
    const cases: [RequestInit & { key?: string | null }, string][] = [
      [{ method: "OPTIONS", key: null }, "OPTIONS without a key"],
      [{ method: "OPTIONS" }, "OPTIONS"],
      [{ method: "HEAD" }, "HEAD"],
      [{ method: "DELETE" }, "DELETE"],
      [{ method: "POST", body: rex }, "POST"],
    ];
    for (const [init, label] of cases) {
      const response = await request("/v1/pets/1", init);
      assert.equal(response.status, 410, label);
      assert.equal(response.headers.get("allow"), null, label);
      assertDeprecated(response);
      if (init.method !== "HEAD") assert.equal((await errorOf(response)).code, "gone", label);
    }
    // The key is still checked first for everything but OPTIONS.
    for (const method of ["GET", "HEAD", "DELETE"]) {
      const response = await request("/v1/pets/1", { method, key: null });
      assert.equal(response.status, 401, method);
      assertDeprecated(response);
    }
    assert.equal((await request("/v1/pets", { method: "OPTIONS", key: null })).status, 204);
  });

  it("answers OPTIONS with 204 until the sunset instant", async () => {
    const { request } = testApp({ clock: () => Date.parse(SUNSET) - 1 });
    const response = await request("/v1/pets/1", { method: "OPTIONS", key: null });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("allow"), "GET, HEAD, OPTIONS");
  });
});

describe("paths, methods, HEAD and OPTIONS", () => {
  it("unknown paths are 404 not_found, including the orders the seed only mentions", async () => {
    const { request } = testApp();
    for (
      const path of [
        "/v1/store/orders",
        "/v1/nowhere",
        "/v1/pets/1/2",
        "/v1/pets/",
        "/elsewhere",
        "/",
        "/v2/pets",
      ]
    ) {
      const response = await request(path);
      assert.equal(response.status, 404, path);
      assert.equal((await errorOf(response)).code, "not_found");
    }
  });

  it("a known path with a wrong method is 405 with Allow", async () => {
    const { request } = testApp();
    for (
      const [path, method, allow] of [["/v1/pets", "DELETE", "GET, HEAD, POST, OPTIONS"], [
        "/v1/pets/1",
        "POST",
        "GET, HEAD, OPTIONS",
      ], ["/healthz", "POST", "GET, HEAD, OPTIONS"]]
    ) {
      const response = await request(path, { method });
      assert.equal(response.status, 405, `${method} ${path}`);
      assert.equal(response.headers.get("allow"), allow);
      assert.equal((await errorOf(response)).code, "method_not_allowed");
    }
  });

  it("HEAD answers like GET without a body", async () => {
    const { request } = testApp();
    await request("/v1/pets", { method: "POST", body: rex });
    const head = await request("/v1/pets", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-type"), "application/json");
    assert.equal(await head.text(), "");
    assert.equal((await request("/v1/pets/1", { method: "HEAD" })).status, 200);
    assert.equal((await request("/v1/pets", { method: "HEAD", key: null })).status, 401);
  });

  it("HEAD states the Content-Length GET sends, in bytes, for 200s and errors alike", async () => {
    const { request } = testApp();
    // Multi-byte characters: the length is of the UTF-8 bytes, not of the string.
    await request("/v1/pets", {
      method: "POST",
      body: JSON.stringify({ name: "Rëx 😀 名前", categoryId: 1 }),
    });
    for (
      const [path, key] of [
        ["/v1/pets", KEY],
        ["/v1/pets/1", KEY],
        ["/v1/pets/99", KEY],
        ["/v1/pets", null],
        ["/healthz", null],
        ["/v1/openapi.json", null],
      ] as const
    ) {
      const get = await request(path, { key });
      const bytes = (await get.arrayBuffer()).byteLength;
      const head = await request(path, { method: "HEAD", key });
      assert.equal(head.status, get.status, path);
      assert.equal(head.headers.get("content-length"), String(bytes), path);
      assert.equal(await head.text(), "", path);
    }
  });

  it("OPTIONS on a known path needs no key and answers 204 with Allow", async () => {
    const { request } = testApp();
    const response = await request("/v1/pets", { method: "OPTIONS", key: null });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("allow"), "GET, HEAD, POST, OPTIONS");
  });

  it("serves everything under BASE_PATH", async () => {
    const { request } = testApp({ env: { BASE_PATH: "/api/v1" } });
    assert.equal(
      (await request("/api/v1/pets", { method: "POST", body: rex })).headers.get("location"),
      "/api/v1/pets/1",
    );
    assert.equal((await request("/v1/pets")).status, 404);
  });
});

describe("operations", () => {
  it("/healthz and /readyz answer without a key", async () => {
    const { request } = testApp();
    const health = await request("/healthz", { key: null });
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.equal((await request("/readyz", { key: null })).status, 200);
  });

  it("/readyz is 503 while the store is loading and 200 once it is ready", async () => {
    const { app, store, request } = testApp({ storeLoaded: false });
    const loading = await request("/readyz", { key: null });
    assert.equal(loading.status, 503);
    assert.equal((await errorOf(loading)).code, "unavailable");
    assert.equal((await request("/v1/pets")).status, 503, "API requests wait for the store too");
    app.ready(store);
    assert.equal((await request("/readyz", { key: null })).status, 200);
    assert.equal((await request("/v1/pets")).status, 200);
  });

  it("/readyz is 503 while draining, and API requests are refused with 503", async () => {
    const { app, request } = testApp();
    app.drain();
    const ready = await request("/readyz");
    assert.equal(ready.status, 503);
    assert.equal((await errorOf(ready)).code, "unavailable");
    assert.equal((await request("/v1/pets")).status, 503);
    assert.equal((await request("/healthz")).status, 200);
  });

  it("a store that cannot reach its data answers 503 unavailable without details, and /readyz 503", async () => {
    const { request, store, log } = testApp();
    store.available = false;
    for (const path of ["/v1/pets", "/v1/pets/1"]) {
      const response = await request(path);
      assert.equal(response.status, 503);
      assert.equal(response.headers.get("retry-after"), "1");
      const body = await errorOf(response);
      assert.equal(body.code, "unavailable");
      assert.ok(!JSON.stringify(body).includes("10.0.0.7"), "no internal detail to the client");
    }
    assert.ok(JSON.stringify(log.lines).includes("10.0.0.7"), "the detail is logged");
    const ready = await request("/readyz", { key: null });
    assert.equal(ready.status, 503);
    assert.match((await errorOf(ready)).message, /database/);
    assert.equal((await request("/healthz", { key: null })).status, 200);
    store.available = true;
    assert.equal((await request("/readyz", { key: null })).status, 200);
    assert.equal((await request("/v1/pets")).status, 200);
  });

  it("POST /v1/pets answers 503 unavailable while the store cannot reach its data, and saves nothing", async () => {
    const { request, store } = testApp();
    store.available = false;
    const refused = await request("/v1/pets", {
      method: "POST",
      body: rex,
      headers: { "idempotency-key": "while-down" },
    });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.equal((await errorOf(refused)).code, "unavailable");
    assert.equal(store.pets.length, 0);
    store.available = true;
    // The refused request claimed nothing: its key makes a pet once the store is back.
    const created = await request("/v1/pets", {
      method: "POST",
      body: rex,
      headers: { "idempotency-key": "while-down" },
    });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get("idempotent-replayed"), null);
  });

  it("echoes a safe X-Request-Id and generates one otherwise", async () => {
    const { request } = testApp();
    assert.equal(
      (await request("/healthz", { headers: { "x-request-id": "abc-123:x=y" } })).headers.get(
        "x-request-id",
      ),
      "abc-123:x=y",
    );
    const generated = (await request("/healthz", { headers: { "x-request-id": "bad id!" } }))
      .headers.get("x-request-id");
    assert.match(generated ?? "", /^[0-9a-f-]{36}$/);
  });

  it("echoes an X-Request-Id of exactly 200 characters and replaces one of 201", async () => {
    const { request } = testApp();
    const longest = "A.b_9:=-".repeat(25);
    assert.equal(longest.length, 200);
    const echoed = await request("/healthz", { headers: { "x-request-id": longest } });
    assert.equal(echoed.headers.get("x-request-id"), longest);
    const tooLong = await request("/healthz", { headers: { "x-request-id": `${longest}x` } });
    assert.match(tooLong.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  });

  it("exposes every header docs/api.md lists to browser code when CORS_ORIGINS is set", async () => {
    const origin = "https://app.example.com";
    const { request } = testApp({ env: { CORS_ORIGINS: origin, RATE_LIMIT: "60" } });
    const response = await request("/v1/pets", { headers: { origin } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("access-control-allow-origin"), origin);
    const exposed = (response.headers.get("access-control-expose-headers") ?? "")
      .split(",").map((name) => name.trim().toLowerCase());
    // Written out, not imported: this is the list the contract promises browser code.
    for (
      const name of [
        "Link",
        "Location",
        "Deprecation",
        "Sunset",
        "Retry-After",
        "X-Request-Id",
        "Idempotent-Replayed",
        "RateLimit",
        "RateLimit-Policy",
        "ETag",
      ]
    ) {
      assert.ok(exposed.includes(name.toLowerCase()), `${name} in ${exposed.join(", ")}`);
    }
    // The rate-limit headers this response really carries are among them.
    const rateLimitHeaders = [...response.headers.keys()].filter((name) =>
      name.startsWith("ratelimit")
    );
    assert.equal(rateLimitHeaders.length, 2, rateLimitHeaders.join(", "));
    for (const name of rateLimitHeaders) assert.ok(exposed.includes(name), name);
  });

  it("logs one JSON line per request without keys or bodies", async () => {
    const { request, log } = testApp();
    await request("/v1/pets", {
      method: "POST",
      body: JSON.stringify({ name: "SecretName", categoryId: 1 }),
    });
    const line = log.lines.at(-1)!;
    assert.equal(line.method, "POST");
    assert.equal(line.path, "/v1/pets");
    assert.equal(line.status, 201);
    assert.equal(typeof line.durationMs, "number");
    assert.equal(typeof line.requestId, "string");
    const text = JSON.stringify(log.lines);
    assert.ok(!text.includes(KEY), "no key in logs");
    assert.ok(!text.includes("SecretName"), "no body in logs");
  });

  it("sets X-Content-Type-Options: nosniff on every response", async () => {
    const { request } = testApp();
    for (const path of ["/healthz", "/v1/pets", "/nowhere"]) {
      assert.equal((await request(path)).headers.get("x-content-type-options"), "nosniff");
    }
  });
});

describe("splitUrl()", () => {
  it("splitUrl() takes the path from after the authority, which ends at its first /, ? or #", () => {
    assert.deepEqual(splitUrl("http://x/v1/pets?limit=1"), { path: "/v1/pets", query: "limit=1" });
    assert.deepEqual(splitUrl("https://[::1]:8080/healthz"), { path: "/healthz", query: "" });
    assert.deepEqual(splitUrl("http://other?limit=1"), { path: "/", query: "limit=1" });
    assert.deepEqual(splitUrl("http://a#b/v1/pets"), { path: "/", query: "" });
    assert.deepEqual(splitUrl("HTTP://u@other:1/v1/pets"), { path: "/v1/pets", query: "" });
    assert.deepEqual(splitUrl("http://x/a#f?g"), { path: "/a", query: "" });
  });

  it("splitUrl() reads an origin-form target (Bun, with a Host that is no host) from its start", () => {
    assert.deepEqual(splitUrl("/healthz"), { path: "/healthz", query: "" });
    assert.deepEqual(splitUrl("/x://y/v1/pets?a=1"), { path: "/x://y/v1/pets", query: "a=1" });
  });

  it("splitUrl() removes dot segments from the path, never from the query", () => {
    assert.deepEqual(splitUrl("http://x/v1/docs/../pets"), { path: "/v1/pets", query: "" });
    assert.deepEqual(splitUrl("/v1/../v1/pets?a=/../b"), { path: "/v1/pets", query: "a=/../b" });
  });
});

describe("removeDotSegments()", () => {
  it("removeDotSegments() applies . and .. as RFC 3986 §5.2.4 does", () => {
    const cases: [string, string][] = [
      ["/v1/docs/../pets", "/v1/pets"],
      ["/v1/../v1/pets", "/v1/pets"],
      ["/v1/./pets", "/v1/pets"],
      ["/a/b/c/./../../g", "/a/g"],
      ["/../../v1/pets", "/v1/pets"],
      ["/a/..", "/"],
      ["/a/.", "/a/"],
      ["/..", "/"],
      ["/.", "/"],
      ["//x/../y", "//y"],
      ["/v1/pets/...", "/v1/pets/..."],
      ["/v1/.hidden/..x", "/v1/.hidden/..x"],
    ];
    for (const [path, expected] of cases) assert.equal(removeDotSegments(path), expected, path);
  });

  it("removeDotSegments() takes %2e for a dot and \\ for a slash, as Bun's URL parser does", () => {
    assert.equal(removeDotSegments("/v1/%2e%2e/v1/pets"), "/v1/pets");
    assert.equal(removeDotSegments("/v1/.%2E/v1/%2e/pets"), "/v1/pets");
    assert.equal(removeDotSegments("/v1\\pets"), "/v1/pets");
    assert.equal(removeDotSegments("/v1/%2f/pets"), "/v1/%2f/pets");
  });
});

describe("a client that goes away mid-body", () => {
  it("POST /v1/pets whose body read fails is logged as 499 at level info, and stores nothing", async () => {
    const { app, store, log } = testApp();
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new Error("connection closed"));
        sent = true;
        controller.enqueue(new TextEncoder().encode('{"name":"Re'));
      },
    });
    const response = await app.fetch(
      new Request("http://localhost/v1/pets", {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body,
        // @ts-ignore: `duplex` is needed for a streamed body (Node, Deno) but missing from lib.dom.
        duplex: "half",
      }),
    );
    assert.equal(response.status, 499);
    assert.equal(store.pets.length, 0);
    assert.deepEqual(log.lines.filter((line) => line.level !== "info"), []);
    const line = log.lines.find((line) => line.msg === "request");
    assert.equal(line?.status, 499);
    assert.equal(line?.level, "info");
  });
});
