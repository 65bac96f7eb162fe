/** GET /v1/pets in the app: pages, the status filter, the Link walk and its edges, bad queries. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errorOf, testApp } from "../support/app.ts";
import { nextLink } from "../support/link_header.ts";

const rex = JSON.stringify({ name: "Rex", categoryId: 1, status: "available" });

/** `count` pets, created through the API, cycling through the statuses and none. */
async function seed(request: ReturnType<typeof testApp>["request"], count: number) {
  const statuses = ["available", "pending", "sold", undefined];
  for (let i = 0; i < count; i++) {
    const status = statuses[i % 4];
    const response = await request("/v1/pets", {
      method: "POST",
      body: JSON.stringify({
        name: `pet ${i + 1}`,
        categoryId: i,
        ...(status ? { status } : {}),
      }),
    });
    assert.equal(response.status, 201);
  }
}

describe("GET /v1/pets", () => {
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
