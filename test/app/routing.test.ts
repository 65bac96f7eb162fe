/** Paths and methods in the app: 404, 405 + Allow, HEAD, BASE_PATH, the URL cap and URL splitting. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { removeDotSegments, splitUrl } from "../../src/http/url.ts";
import { errorOf, KEY, testApp } from "../support/app.ts";

const rex = JSON.stringify({ name: "Rex", categoryId: 1, status: "available" });

/** `splitUrl`'s path and query, for the tests of where they start and end. */
function pathAndQuery(url: string) {
  const { path, query } = splitUrl(url);
  return { path, query };
}

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

  it("serves everything under BASE_PATH", async () => {
    const { request } = testApp({ env: { BASE_PATH: "/api/v1" } });
    assert.equal(
      (await request("/api/v1/pets", { method: "POST", body: rex })).headers.get("location"),
      "/api/v1/pets/1",
    );
    assert.equal((await request("/v1/pets")).status, 404);
  });
});

describe("URL length cap in the app", () => {
  it("answers 400 invalid_query for a query past 8 KiB, 404 for a path past it", async () => {
    const { request } = testApp();
    assert.equal((await request(`/v1/pets?limit=5&x=${"a".repeat(8000)}`)).status, 200);
    const longQuery = await request(`/v1/pets?limit=5&x=${"a".repeat(9000)}`);
    assert.equal(longQuery.status, 400);
    assert.equal((await errorOf(longQuery)).code, "invalid_query");
    const longPath = await request(`/v1/${"p".repeat(9000)}`);
    assert.equal(longPath.status, 404);
    assert.equal((await errorOf(longPath)).code, "not_found");
  });

  it("still answers 401 first for an over-long URL without a key", async () => {
    const { request } = testApp();
    const response = await request(`/v1/pets?x=${"a".repeat(20_000)}`, { key: null });
    assert.equal(response.status, 401);
  });
});

describe("a path sent with a backslash or an empty segment", () => {
  /** A request as an adapter hands it over, with the URL as given (a `Request` would parse it). */
  function sent(url: string, options: { key?: boolean; unroutable?: boolean } = {}) {
    const headers = new Headers(options.key === false ? {} : { authorization: `Bearer ${KEY}` });
    return {
      method: "GET",
      url,
      headers,
      body: null,
      arrayBuffer: () => Promise.resolve(new ArrayBuffer(0)),
      ...(options.unroutable === undefined ? {} : { unroutable: options.unroutable }),
    };
  }

  it("names nothing: 404 with the key, 401 without it where it reads as under BASE_PATH", async () => {
    const { app } = testApp();
    assert.equal((await app.fetch(sent("http://x/v1/pets"))).status, 200);
    for (const url of ["http://x/v1\\pets", "/v1/pets\\", "/v1/x\\..\\pets", "//../v1/pets"]) {
      const response = await app.fetch(sent(url));
      assert.equal(response.status, 404, url);
      const error = await errorOf(response);
      assert.equal(error.code, "not_found");
      assert.match(error.message, /as sent, the path holds a backslash/, url);
      assert.equal((await app.fetch(sent(url, { key: false }))).status, 401, url);
    }
    assert.equal((await app.fetch(sent("/healthz\\", { key: false }))).status, 404);
  });

  it("an adapter's mark (Bun, whose URL shows the path parsed) makes a known path name nothing", async () => {
    const { app } = testApp();
    const marked = await app.fetch(sent("http://x/v1/pets", { unroutable: true }));
    assert.equal(marked.status, 404);
    assert.equal((await app.fetch(sent("http://x/healthz", { unroutable: true }))).status, 404);
    assert.equal((await app.fetch(sent("http://x/healthz", { unroutable: false }))).status, 200);
  });
});

describe("splitUrl()", () => {
  it("splitUrl() takes the path from after the authority, which ends at its first /, ? or #", () => {
    assert.deepEqual(pathAndQuery("http://x/v1/pets?limit=1"), {
      path: "/v1/pets",
      query: "limit=1",
    });
    assert.deepEqual(pathAndQuery("https://[::1]:8080/healthz"), { path: "/healthz", query: "" });
    assert.deepEqual(pathAndQuery("http://other?limit=1"), { path: "/", query: "limit=1" });
    assert.deepEqual(pathAndQuery("http://a#b/v1/pets"), { path: "/", query: "" });
    assert.deepEqual(pathAndQuery("HTTP://u@other:1/v1/pets"), { path: "/v1/pets", query: "" });
    assert.deepEqual(pathAndQuery("http://x/a#f?g"), { path: "/a", query: "" });
  });

  it("splitUrl() reads an origin-form target (Bun, with a Host that is no host) from its start", () => {
    assert.deepEqual(pathAndQuery("/healthz"), { path: "/healthz", query: "" });
    assert.deepEqual(pathAndQuery("/x://y/v1/pets?a=1"), { path: "/x://y/v1/pets", query: "a=1" });
  });

  it("splitUrl() removes dot segments from the path, never from the query", () => {
    assert.deepEqual(pathAndQuery("http://x/v1/docs/../pets"), { path: "/v1/pets", query: "" });
    assert.deepEqual(pathAndQuery("/v1/../v1/pets?a=/../b"), {
      path: "/v1/pets",
      query: "a=/../b",
    });
  });

  it("splitUrl() finds unroutable a path sent with a backslash, %5C or an empty segment", () => {
    const unroutable = [
      "/v1\\pets",
      "http://x/v1\\pets?limit=1",
      "/v1%5Cpets",
      "/v1/pets/1%5c",
      "/v1/pets\\..\\pets",
      "/v1/pets#\\x",
      "/v1/pets#/",
      "//../v1/pets",
      "/v1//pets",
      "/v1/pets/",
      "/",
      "http://x",
      "http://x?limit=1",
      "/a".repeat(65),
      "/a".repeat(64) + "/../..",
    ];
    for (const url of unroutable) assert.equal(splitUrl(url).unroutable, true, url);
    const routable = [
      "/v1/pets",
      "http://x/v1/pets?a=\\&b=%5C&c=//",
      "/v1/docs/../pets",
      "/v1/%2e%2e/pets",
      "/a".repeat(64),
      "/v1/pets/%255c",
    ];
    for (const url of routable) assert.equal(splitUrl(url).unroutable, false, url);
    // The path still reads as Bun's URL parser reads it: where it points decides the key.
    assert.deepEqual(pathAndQuery("/v1\\pets"), { path: "/v1/pets", query: "" });
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
