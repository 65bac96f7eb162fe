import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { Router } from "../../src/http/router.ts";

const ok = () => new Response("ok");

describe("Router", () => {
  const router = new Router<unknown>([
    { method: "GET", pattern: "/pets", handler: ok },
    { method: "POST", pattern: "/pets", handler: ok },
    { method: "GET", pattern: "/pets/:petId", handler: ok, options: { deprecated: true } },
  ]);

  it("match() captures params and lists the Allow header with HEAD and OPTIONS", () => {
    const match = router.match("/pets/42")!;
    assert.deepEqual(match.params, { petId: "42" });
    assert.equal(match.allow, "GET, HEAD, OPTIONS");
    assert.equal(match.options.deprecated, true);
    assert.equal(router.match("/pets")!.allow, "GET, HEAD, POST, OPTIONS");
  });

  it("match() hands back what the path's route declared, whatever the caller's shape of it", () => {
    const declared = { weight: 3, tags: ["a"] };
    const typed = new Router<unknown, unknown, typeof declared>([
      { method: "GET", pattern: "/things/:id", handler: ok, options: declared },
      { method: "POST", pattern: "/things/:id", handler: ok },
    ]);
    assert.equal(typed.match("/things/1")!.options, declared);
  });

  it("match() returns undefined for unknown paths, empty segments and trailing slashes", () => {
    for (const path of ["/", "/pet", "/pets/", "/pets//1", "/pets/1/2", "pets", ""]) {
      assert.equal(router.match(path), undefined, path);
    }
  });

  it("match() finds literal paths exactly, whatever routers hold patterns or not", () => {
    const literalOnly = new Router<unknown>([
      { method: "GET", pattern: "/healthz", handler: ok },
      { method: "GET", pattern: "/readyz", handler: ok, options: { public: true } },
    ]);
    assert.equal(literalOnly.match("/healthz")!.allow, "GET, HEAD, OPTIONS");
    assert.deepEqual(literalOnly.match("/readyz")!.params, {});
    assert.equal(literalOnly.match("/readyz")!.options.public, true);
    for (const path of ["/healthz/", "//healthz", "/healthz/x", "/HEALTHZ", "", "/"]) {
      assert.equal(literalOnly.match(path), undefined, path);
    }
    // A literal path wins over a pattern registered before it.
    const both = new Router<unknown>([
      { method: "GET", pattern: "/pets/:petId", handler: ok },
      { method: "POST", pattern: "/pets/search", handler: ok },
    ]);
    assert.equal(both.match("/pets/search")!.pattern, "/pets/search");
    assert.deepEqual(both.match("/pets/7")!.params, { petId: "7" });
  });

  it("match() tells apart literal paths of the same length", () => {
    // /healthz and /metrics: the same length, each its own route.
    const sameLength = new Router<unknown>([
      { method: "GET", pattern: "/healthz", handler: ok },
      { method: "GET", pattern: "/metrics", handler: ok, options: { public: false } },
      { method: "POST", pattern: "/metrics", handler: ok },
      { method: "GET", pattern: "/readyz", handler: ok },
    ]);
    assert.equal(sameLength.match("/healthz")!.pattern, "/healthz");
    assert.equal(sameLength.match("/metrics")!.pattern, "/metrics");
    assert.equal(sameLength.match("/metrics")!.allow, "GET, HEAD, POST, OPTIONS");
    assert.equal(sameLength.match("/readyz")!.pattern, "/readyz");
    assert.equal(sameLength.match("/metricz"), undefined);
  });

  it("match() agrees with matching the path split into segments, on any path", () => {
    const router = new Router<unknown>([
      { method: "GET", pattern: "/pets/:petId", handler: ok },
      { method: "GET", pattern: "/stores/:storeId/pets/:petId", handler: ok },
      { method: "GET", pattern: "/a/:x/b", handler: ok },
    ]);
    // The reference: cut at every `/`; an empty segment matches nothing.
    const reference = (path: string) => {
      if (!path.startsWith("/") || path === "/") return undefined;
      const segments = path.slice(1).split("/");
      if (segments.includes("")) return undefined;
      for (const pattern of ["/pets/:petId", "/stores/:storeId/pets/:petId", "/a/:x/b"]) {
        const expected = pattern.slice(1).split("/");
        if (expected.length !== segments.length) continue;
        const params: Record<string, string> = {};
        if (
          expected.every((part, i) =>
            part.startsWith(":")
              ? (params[part.slice(1)] = segments[i], true)
              : part === segments[i]
          )
        ) return { pattern, params };
      }
      return undefined;
    };
    const part = fc.constantFrom("", "pets", "stores", "a", "b", "7", "x.y", "%2F", "petsx", "pet");
    fc.assert(
      fc.property(fc.array(part, { maxLength: 6 }), fc.boolean(), (parts, rooted) => {
        const path = (rooted ? "/" : "") + parts.join("/");
        const found = router.match(path);
        const expected = reference(path);
        assert.deepEqual(
          found === undefined ? undefined : { pattern: found.pattern, params: { ...found.params } },
          expected,
          path,
        );
      }),
      { numRuns: 2000 },
    );
    assert.deepEqual(router.match("/stores/3/pets/9")!.params, { storeId: "3", petId: "9" });
  });

  it("refuses bad routes when they are registered", () => {
    assert.throws(
      () =>
        new Router([{ method: "GET", pattern: "/a", handler: ok }, {
          method: "GET",
          pattern: "/a",
          handler: ok,
        }]),
      /Duplicate/,
    );
    assert.throws(() => new Router([{ method: "get", pattern: "/a", handler: ok }]), /method/);
    assert.throws(() => new Router([{ method: "GET", pattern: "/a/", handler: ok }]), /pattern/);
    assert.throws(() => new Router([{ method: "HEAD", pattern: "/a", handler: ok }]), /HEAD/);
  });
});
