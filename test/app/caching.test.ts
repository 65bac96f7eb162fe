/**
 * HTTP caching and compression of the cacheable GETs (`/pets`, `/pets/{petId}`), in process:
 * tags, 304s, codings, the cache's invisibility, and how they meet keys, sunset and rate limits.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Buffer } from "node:buffer";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { testApp } from "../support/app.ts";
import { nextLink } from "../support/link_header.ts";
import type { MemoryStore } from "../support/memory_store.ts";
import type { PetStatus } from "../../src/schemas/pet.ts";

const SUNSET = "Thu, 05 Dec 2030 00:00:00 GMT";
const STATUSES: (PetStatus | undefined)[] = ["available", "pending", "sold", undefined];

/** `count` pets with names long enough that a page of 20 is well over 1 KiB. */
async function addPets(store: MemoryStore, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const n = store.pets.length + 1;
    await store.create({
      name: `Pet number ${n}, a rather long name`,
      categoryId: BigInt(n * 7919),
      status: STATUSES[n % 4],
    });
  }
}

async function bytesOf(response: Response): Promise<Uint8Array> {
  return new Uint8Array(await response.arrayBuffer());
}

/** The identity bytes of a response body, whatever its coding. */
async function decoded(response: Response): Promise<string> {
  const body = await bytesOf(response);
  const coding = response.headers.get("content-encoding");
  const plain = coding === "br"
    ? brotliDecompressSync(body)
    : coding === "gzip"
    ? gunzipSync(body)
    : body;
  return new TextDecoder().decode(plain);
}

const gzip = { "accept-encoding": "gzip" };
const br = { "accept-encoding": "br" };

const rex = JSON.stringify({ name: "Rex", categoryId: 1, status: "available" });

describe("Cache-Control", () => {
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

describe("ETag and Cache-Control on the cacheable GETs", () => {
  it("a page the cache holds is served as before once the service drains (only /readyz says 503)", async () => {
    const { app, store, request } = testApp();
    await addPets(store, 30);
    for (let i = 0; i < 3; i++) assert.equal((await request("/v1/pets")).status, 200);
    app.drain();
    assert.equal((await request("/v1/pets")).status, 200);
    assert.equal((await request("/readyz")).status, 503);
  });

  it("GET /pets and /pets/{petId} carry a strong ETag, private, no-cache and Vary", async () => {
    const { request, store } = testApp();
    await addPets(store, 3);
    for (const path of ["/v1/pets", "/v1/pets?limit=2", "/v1/pets/1"]) {
      for (const method of ["GET", "HEAD"]) {
        const response = await request(path, { method });
        assert.equal(response.status, 200, path);
        assert.match(response.headers.get("etag") ?? "", /^"[^"]+"$/, `${method} ${path}`);
        assert.equal(response.headers.get("cache-control"), "private, no-cache", path);
        assert.equal(response.headers.get("vary"), "Accept-Encoding", path);
        await response.body?.cancel();
      }
    }
  });

  it("with CORS for listed origins, Vary names both Accept-Encoding and Origin, 304 included", async () => {
    const origin = "https://app.example.com";
    const { request, store } = testApp({ env: { CORS_ORIGINS: origin } });
    await addPets(store, 1);
    for (const condition of [undefined, "*"]) {
      const headers: Record<string, string> = { origin };
      if (condition !== undefined) headers["if-none-match"] = condition;
      const response = await request("/v1/pets", { headers });
      assert.equal(response.status, condition === undefined ? 200 : 304);
      assert.equal(response.headers.get("vary"), "Accept-Encoding, Origin");
      assert.match(response.headers.get("access-control-expose-headers") ?? "", /\bETag\b/);
    }
  });

  it("errors and POST keep Cache-Control: no-store and carry no ETag", async () => {
    const { request } = testApp();
    const cases: [string, RequestInit][] = [
      ["/v1/pets/1", {}],
      ["/v1/pets?limit=0", {}],
      ["/v1/pets", { method: "POST", body: JSON.stringify({ name: "Rex", categoryId: 1 }) }],
    ];
    for (const [path, init] of cases) {
      const response = await request(path, { ...init, headers: { "if-none-match": "*" } });
      assert.notEqual(response.status, 304, path);
      assert.equal(response.headers.get("cache-control"), "no-store", path);
      assert.equal(response.headers.get("etag"), null, path);
      await response.body?.cancel();
    }
  });

  it("the same page has the same tag on every request and in a new app over the same pets", async () => {
    const first = testApp();
    await addPets(first.store, 45);
    const second = testApp();
    second.store.pets.push(...first.store.pets);
    const next = nextLink(await first.request("/v1/pets"))!;
    for (const path of ["/v1/pets", "/v1/pets?status=sold&limit=3", next, "/v1/pets/7"]) {
      for (const headers of [{}, gzip, br]) {
        const a = (await first.request(path, { headers })).headers.get("etag");
        const b = (await first.request(path, { headers })).headers.get("etag");
        const c = (await second.request(path, { headers })).headers.get("etag");
        assert.equal(a, b, path);
        assert.equal(a, c, path);
      }
    }
  });

  it("a partial page's tag changes when a pet joins it; a full page's never does", async () => {
    const { request, store } = testApp();
    await addPets(store, 25);
    const full = (await request("/v1/pets")).headers.get("etag");
    const nextUrl = nextLink(await request("/v1/pets"))!;
    const partial = (await request(nextUrl)).headers.get("etag");
    await addPets(store, 1);
    assert.equal((await request("/v1/pets")).headers.get("etag"), full);
    const grown = await request(nextUrl);
    assert.notEqual(grown.headers.get("etag"), partial);
    assert.equal((JSON.parse(await grown.text()) as unknown[]).length, 6);
  });

  it("a full last page's tag changes when it gains its next link", async () => {
    const { request, store } = testApp();
    await addPets(store, 20);
    const before = await request("/v1/pets");
    assert.equal(nextLink(before), undefined);
    await addPets(store, 1);
    const after = await request("/v1/pets");
    assert.notEqual(nextLink(after), undefined);
    assert.notEqual(after.headers.get("etag"), before.headers.get("etag"));
    assert.equal(await after.text(), await before.text(), "same pets, only the link is new");
  });

  it("limit, status, cursor and the coding each give another tag", async () => {
    const { request, store } = testApp();
    await addPets(store, 60);
    const next = nextLink(await request("/v1/pets"))!;
    const tags = new Set<string | null>();
    const cases: [string, Record<string, string>][] = [
      ["/v1/pets", {}],
      ["/v1/pets?limit=21", {}],
      ["/v1/pets?status=available", {}],
      [next, {}],
      ["/v1/pets", gzip],
      ["/v1/pets", br],
      ["/v1/pets/1", {}],
      ["/v1/pets/2", {}],
    ];
    for (const [path, headers] of cases) {
      tags.add((await request(path, { headers })).headers.get("etag"));
    }
    assert.equal(tags.size, cases.length);
  });
});

describe("If-None-Match", () => {
  it("answers 304 with no body and the validator headers to a matching tag, list, * or W/", async () => {
    const { request, store } = testApp();
    await addPets(store, 30);
    for (const path of ["/v1/pets", "/v1/pets?limit=100", "/v1/pets/3"]) {
      const etag = (await request(path)).headers.get("etag")!;
      for (const condition of [etag, `W/${etag}`, `"nope", ${etag}`, "*"]) {
        for (const method of ["GET", "HEAD"]) {
          const response = await request(path, { method, headers: { "if-none-match": condition } });
          assert.equal(response.status, 304, `${method} ${path} ${condition}`);
          assert.equal(await response.text(), "");
          assert.equal(response.headers.get("etag"), etag);
          assert.equal(response.headers.get("cache-control"), "private, no-cache");
          assert.equal(response.headers.get("vary"), "Accept-Encoding");
          assert.equal(response.headers.get("content-encoding"), null);
        }
      }
    }
  });

  it("answers 200 to a tag that does not match (another coding's, or an old one)", async () => {
    const { request, store } = testApp();
    await addPets(store, 30);
    const identityTag = (await request("/v1/pets")).headers.get("etag")!;
    const asGzip = await request("/v1/pets", {
      headers: { ...gzip, "if-none-match": identityTag },
    });
    assert.equal(asGzip.status, 200);
    assert.equal(asGzip.headers.get("content-encoding"), "gzip");
    const partial = "/v1/pets?limit=40";
    const old = (await request(partial)).headers.get("etag")!;
    await addPets(store, 1);
    assert.equal((await request(partial, { headers: { "if-none-match": old } })).status, 200);
  });

  it("a 304 of the deprecated path carries its deprecation headers", async () => {
    const { request, store } = testApp();
    await addPets(store, 1);
    const response = await request("/v1/pets/1", { headers: { "if-none-match": "*" } });
    assert.equal(response.status, 304);
    assert.match(response.headers.get("deprecation") ?? "", /^@\d+$/);
    assert.equal(response.headers.get("sunset"), SUNSET);
    assert.match(response.headers.get("link") ?? "", /rel="successor-version"/);
  });

  it("the key is checked first: 401 without one, whatever the tags", async () => {
    const { request, store } = testApp();
    await addPets(store, 1);
    for (const path of ["/v1/pets", "/v1/pets/1"]) {
      const response = await request(path, { key: null, headers: { "if-none-match": "*" } });
      assert.equal(response.status, 401, path);
    }
  });

  it("from the sunset on the deprecated path answers 410, never 304", async () => {
    const { request, store } = testApp({ clock: () => Date.parse(SUNSET) });
    await addPets(store, 1);
    const response = await request("/v1/pets/1", { headers: { "if-none-match": "*" } });
    assert.equal(response.status, 410);
    assert.equal((await response.json()).code, "gone");
  });

  it("a 304 does not use up the rate limit; a key with no quota left gets 429 whatever its tags", async () => {
    const { request, store } = testApp({ env: { RATE_LIMIT: "3" }, clock: () => 1_000_000 });
    await addPets(store, 1);
    const etag = (await request("/v1/pets/1")).headers.get("etag")!; // 1 of 3 used
    for (let i = 0; i < 10; i++) {
      const response = await request("/v1/pets/1", { headers: { "if-none-match": etag } });
      assert.equal(response.status, 304, `revalidation ${i}`);
      assert.match(response.headers.get("ratelimit") ?? "", /r=2;/);
    }
    assert.equal((await request("/v1/pets")).status, 200); // 2 of 3
    assert.equal((await request("/v1/pets")).status, 200); // 3 of 3
    const refused = await request("/v1/pets/1", { headers: { "if-none-match": etag } });
    assert.equal(refused.status, 429);
    assert.ok(refused.headers.get("retry-after"));
  });
});

describe("compression", () => {
  it("sends a body over 1 KiB as br or gzip as Accept-Encoding allows, decoding to the identity bytes", async () => {
    const { request, store } = testApp();
    await addPets(store, 100);
    for (const path of ["/v1/pets", "/v1/pets?limit=100"]) {
      const identity = await request(path);
      assert.equal(identity.headers.get("content-encoding"), null);
      const plain = await identity.text();
      assert.ok(plain.length > 1024);
      const cases: [string, string | null][] = [
        ["gzip", "gzip"],
        ["br", "br"],
        ["gzip, deflate, br", "br"],
        ["br;q=0.5, gzip", "gzip"],
        ["br;q=0, gzip;q=0", null],
        ["identity", null],
        ["*", "br"],
        ["*;q=0, identity", null],
      ];
      for (const [accept, coding] of cases) {
        const response = await request(path, { headers: { "accept-encoding": accept } });
        assert.equal(response.headers.get("content-encoding"), coding, `${path} ${accept}`);
        assert.equal(response.headers.get("vary"), "Accept-Encoding");
        assert.equal(await decoded(response), plain, `${path} ${accept}`);
      }
    }
  });

  it("sends a body of 1 KiB or less as is, with Vary all the same", async () => {
    const { request, store } = testApp();
    await addPets(store, 2);
    for (const path of ["/v1/pets", "/v1/pets/1", "/v1/pets?status=sold"]) {
      const response = await request(path, { headers: { "accept-encoding": "br, gzip" } });
      assert.equal(response.headers.get("content-encoding"), null, path);
      assert.equal(response.headers.get("vary"), "Accept-Encoding", path);
      assert.equal(
        response.headers.get("etag"),
        (await request(path)).headers.get("etag"),
        "the same bytes, the same tag",
      );
    }
  });

  it("HEAD sends the headers GET sends, Content-Length of the encoded body included", async () => {
    const { request, store } = testApp();
    await addPets(store, 30);
    for (const path of ["/v1/pets", "/v1/pets?limit=100", "/v1/pets/1"]) {
      for (const headers of [{}, gzip, br]) {
        const get = await request(path, { headers });
        const length = (await bytesOf(get)).byteLength;
        const head = await request(path, { method: "HEAD", headers });
        for (const name of ["etag", "content-encoding", "cache-control", "vary", "link"]) {
          assert.equal(head.headers.get(name), get.headers.get(name), `${path} ${name}`);
        }
        assert.equal(head.headers.get("content-length"), String(length), path);
      }
    }
  });
});

describe("the response cache", () => {
  /** Requests a scenario makes: pages, pets, codings and conditions, with pets added between. */
  async function scenario(cacheBytes: string) {
    const { request, store } = testApp({ env: { CACHE_BYTES: cacheBytes } });
    const seen: string[] = [];
    const record = async (path: string, init: RequestInit = {}) => {
      const response = await request(path, init);
      const headers = ["etag", "content-encoding", "content-length", "link", "vary"]
        .map((name) => `${name}=${response.headers.get(name)}`).join(" ");
      const body = Buffer.from(await bytesOf(response)).toString("base64");
      seen.push(`${init.method ?? "GET"} ${path} ${response.status} ${headers} ${body}`);
      return response;
    };
    await addPets(store, 150);
    for (let round = 0; round < 2; round++) {
      for (const headers of [{}, gzip, br, { "accept-encoding": "gzip, br;q=0.9" }]) {
        let path: string | undefined = "/v1/pets?limit=40";
        while (path !== undefined) path = nextLink(await record(path, { headers }));
        await record("/v1/pets?status=sold", { headers });
        await record("/v1/pets?limit=100", { headers, method: "HEAD" });
        await record("/v1/pets/5", { headers });
        const etag = (await request("/v1/pets", { headers })).headers.get("etag")!;
        await record("/v1/pets", { headers: { ...headers, "if-none-match": etag } });
      }
      await addPets(store, 30);
    }
    return seen;
  }

  it("what a client receives is the same with the cache on, off and smaller than one body", async () => {
    const on = await scenario(String(64 * 1024 * 1024));
    const off = await scenario("0");
    const tiny = await scenario("700");
    assert.ok(on.length > 40);
    assert.deepEqual(off, on);
    assert.deepEqual(tiny, on);
  });

  it("serves a full page from memory, without asking the store, once it was asked for twice", async () => {
    const { request, store } = testApp();
    await addPets(store, 30);
    const first = await request("/v1/pets", { headers: gzip });
    const firstBody = await bytesOf(first);
    // Asked for once: not admitted yet, so the store still answers.
    store.available = false;
    assert.equal((await request("/v1/pets", { headers: gzip })).status, 503);
    store.available = true;
    await request("/v1/pets", { headers: gzip });
    store.available = false;
    const third = await request("/v1/pets", { headers: gzip });
    assert.equal(third.status, 200);
    assert.deepEqual(await bytesOf(third), firstBody);
    assert.equal(third.headers.get("etag"), first.headers.get("etag"));
    assert.equal(third.headers.get("link"), first.headers.get("link"));
    // A page that can still change is never served from memory.
    assert.equal((await request("/v1/pets?limit=100")).status, 503);
  });

  it("a cached page keeps the next link of the request: with limit=20 given or not", async () => {
    const { request, store } = testApp();
    await addPets(store, 30);
    const implicit = nextLink(await request("/v1/pets"));
    const explicit = nextLink(await request("/v1/pets?limit=20"));
    assert.doesNotMatch(implicit!, /limit=/);
    assert.match(explicit!, /limit=20/);
    assert.doesNotMatch(nextLink(await request("/v1/pets"))!, /limit=/);
  });

  it("keeps nothing with CACHE_BYTES=0: every request asks the store", async () => {
    const { request, store } = testApp({ env: { CACHE_BYTES: "0" } });
    await addPets(store, 30);
    assert.equal((await request("/v1/pets")).status, 200);
    store.available = false;
    assert.equal((await request("/v1/pets")).status, 503);
  });

  it("still answers 503 for a cached page while the store cannot reach its data", async () => {
    const { request, store } = testApp();
    await addPets(store, 30);
    assert.equal((await request("/v1/pets")).status, 200);
    store.available = false;
    assert.equal((await request("/v1/pets")).status, 503);
  });
});
