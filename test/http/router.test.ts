import assert from "node:assert/strict";
import { describe, it } from "node:test";
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
