/**
 * The behaviour every PetStore backend owes the HTTP core, as one suite run against each backend
 * (jsonl_contract.test.ts, postgres_contract.test.ts): ids, exact values, pages, idempotency,
 * persistence across a reopen, closing, and the pets per status every store reports to metrics.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { Registry } from "../../src/observe/metrics_registry.ts";
import type { NewPet } from "../../src/schemas/pet.ts";
import type {
  CreateOutcome,
  IdempotencyClaim,
  PetStore,
  StoredPet,
} from "../../src/store/store.ts";
import { listPets, statusOf } from "./helpers.ts";

/** Somewhere empty to keep pets; `open` may be called again after `close` (a restart). */
export interface StoreLocation {
  open(): Promise<PetStore>;
  remove(): Promise<void>;
}

/** A backend under test. */
export interface StoreBackend {
  readonly name: string;
  readonly skip?: string | false;
  fresh(): Promise<StoreLocation>;
}

function createdPet(outcome: CreateOutcome): StoredPet {
  assert.ok(outcome.kind === "created", `expected created, got ${JSON.stringify(outcome)}`);
  return outcome.pet;
}

async function walk(store: PetStore, status: NewPet["status"], limit: number): Promise<number[]> {
  const ids: number[] = [];
  let afterId = 0;
  for (;;) {
    const page = await listPets(store, { status, afterId, limit });
    ids.push(...page.pets.map((pet) => pet.id));
    if (!page.hasMore) return ids;
    assert.ok(page.pets.length === limit, "a page with more after it is full");
    afterId = page.pets.at(-1)!.id;
  }
}

const claim = (key: string, digest = "d1", scope = "scope-a"): IdempotencyClaim => ({
  scope,
  key,
  digest,
});

/** Registers the contract suite for one backend. */
export function storeContract(backend: StoreBackend): void {
  describe(`PetStore contract: ${backend.name}`, { skip: backend.skip }, () => {
    const locations: StoreLocation[] = [];
    const fresh = async () => {
      const location = await backend.fresh();
      locations.push(location);
      return location;
    };
    after(async () => {
      for (const location of locations.splice(0)) await location.remove();
    });

    it("numbers pets from 1 in creation order and get() returns each exactly", async () => {
      const store = await (await fresh()).open();
      const a = createdPet(await store.create({ name: "Rex", categoryId: 1n, status: "sold" }));
      const b = createdPet(await store.create({ name: "Bo", categoryId: 2n }));
      assert.deepEqual([a.id, b.id], [1, 2]);
      assert.equal(a.json, '{"id":1,"name":"Rex","categoryId":1,"status":"sold"}');
      assert.equal(b.json, '{"id":2,"name":"Bo","categoryId":2}', "no status is invented");
      assert.equal(statusOf(b), undefined);
      assert.deepEqual(await store.get(1), a);
      assert.deepEqual(await store.get(2), b);
      assert.equal(await store.get(3), undefined);
      await store.close();
    });

    it("keeps int64 extremes and names exactly, through a reopen", async () => {
      const location = await fresh();
      let store = await location.open();
      const pets: NewPet[] = [
        { name: "max", categoryId: 9223372036854775807n },
        { name: "min", categoryId: -9223372036854775808n },
        { name: "2^53+1", categoryId: 9007199254740993n },
        { name: ' 😀 "quoted" \\ back\u2028slash ', categoryId: 0n, status: "pending" },
        { name: "שלום مرحبا 𝄞", categoryId: -1n, status: "available" },
      ];
      const made = [];
      for (const pet of pets) made.push(createdPet(await store.create(pet)));
      assert.match(made[0].json, /"categoryId":9223372036854775807[,}]/);
      assert.match(made[1].json, /"categoryId":-9223372036854775808[,}]/);
      assert.match(made[2].json, /"categoryId":9007199254740993[,}]/);
      await store.close();
      store = await location.open();
      for (const pet of made) assert.deepEqual(await store.get(pet.id), pet);
      assert.equal(JSON.parse((await store.get(made[3].id))!.json).name, pets[3].name);
      await store.close();
    });

    it("pages in ascending id order by status, with hasMore exact at the boundaries", async () => {
      const store = await (await fresh()).open();
      const statuses = ["available", "sold", undefined, "available", "pending", "available"];
      for (const [i, status] of statuses.entries()) {
        await store.create(
          { name: `P${i}`, categoryId: BigInt(i), ...(status ? { status } : {}) } as NewPet,
        );
      }
      const all = await listPets(store, { status: undefined, afterId: 0, limit: 6 });
      assert.deepEqual(all.pets.map((pet) => pet.id), [1, 2, 3, 4, 5, 6]);
      assert.equal(all.hasMore, false, "a full last page has no next page");
      const firstTwo = await listPets(store, { status: "available", afterId: 0, limit: 2 });
      assert.deepEqual(firstTwo.pets.map((pet) => pet.id), [1, 4]);
      assert.equal(firstTwo.hasMore, true);
      const rest = await listPets(store, { status: "available", afterId: 4, limit: 2 });
      assert.deepEqual(rest.pets.map((pet) => pet.id), [6]);
      assert.equal(rest.hasMore, false);
      assert.deepEqual((await listPets(store, { status: "sold", afterId: 2, limit: 5 })).pets, []);
      assert.deepEqual(await walk(store, "pending", 1), [5]);
      await store.close();
    });

    it("gives concurrent creates distinct increasing ids, each listed once", async () => {
      const store = await (await fresh()).open();
      const outcomes = await Promise.all(
        Array.from(
          { length: 300 },
          (_, i) => store.create({ name: `C${i}`, categoryId: BigInt(i) }),
        ),
      );
      const ids = outcomes.map((outcome) => createdPet(outcome).id).sort((a, b) => a - b);
      assert.equal(new Set(ids).size, 300);
      assert.deepEqual(await walk(store, undefined, 7), ids);
      await store.close();
    });

    it("a page walk during creates returns every pet exactly once", async () => {
      const store = await (await fresh()).open();
      for (let i = 0; i < 20; i++) await store.create({ name: `W${i}`, categoryId: 1n });
      let creating = true;
      const writer = (async () => {
        let made = 0;
        while (creating && made < 2000) {
          await Promise.all([1, 2, 3, 4].map(() => store.create({ name: "N", categoryId: 2n })));
          made += 4;
        }
      })();
      const seen: number[] = [];
      let afterId = 0;
      for (let pages = 0; pages < 60; pages++) {
        const page = await listPets(store, { status: undefined, afterId, limit: 5 });
        seen.push(...page.pets.map((pet) => pet.id));
        if (page.pets.length > 0) afterId = page.pets.at(-1)!.id;
        if (!page.hasMore && pages > 10) break;
      }
      creating = false;
      await writer;
      assert.deepEqual(
        seen,
        Array.from({ length: seen.length }, (_, i) => i + 1),
        "no gap, no repeat",
      );
      await store.close();
    });

    it("a page walk with creates awaited between its pages returns every pet exactly once, new ones at the end", async () => {
      const store = await (await fresh()).open();
      const statuses = ["sold", "available", undefined] as const;
      const ids: { id: number; status: string | undefined }[] = [];
      const create = async (n: number) => {
        const status = statuses[n % 3];
        const pet = createdPet(
          await store.create({
            name: `I${n}`,
            categoryId: BigInt(n),
            ...(status ? { status } : {}),
          }),
        );
        ids.push({ id: pet.id, status });
      };
      for (let n = 0; n < 12; n++) await create(n);
      for (const status of [undefined, "sold"] as const) {
        const seen: number[] = [];
        let afterId = 0;
        for (let pages = 0;; pages++) {
          assert.ok(pages < 100, "the walk ends");
          const page = await listPets(store, { status, afterId, limit: 2 });
          seen.push(...page.pets.map((pet) => pet.id));
          if (page.pets.length > 0) afterId = page.pets.at(-1)!.id;
          if (!page.hasMore) break;
          // Committed creates land between this page and the next; fewer than a page's worth,
          // and only for a while, so the walk catches up with them.
          if (pages < 10) { for (let i = 0; i < 3; i++) await create(ids.length); }
        }
        const expected = ids.filter((pet) => status === undefined || pet.status === status)
          .map((pet) => pet.id);
        assert.deepEqual(seen, expected, `status ${status}: every pet once, in id order`);
      }
      await store.close();
    });

    it("replays a repeated Idempotency-Key, refuses it with another body, scopes it per key", async () => {
      const store = await (await fresh()).open();
      const pet = { name: "Rex", categoryId: 9007199254740993n };
      const first = createdPet(await store.create(pet, claim("k1")));
      assert.deepEqual(await store.create(pet, claim("k1")), { kind: "replayed", pet: first });
      assert.deepEqual(await store.create(pet, claim("k1", "other")), { kind: "key_reused" });
      const otherScope = createdPet(await store.create(pet, claim("k1", "d1", "scope-b")));
      assert.notEqual(otherScope.id, first.id);
      assert.deepEqual(await walk(store, undefined, 10), [first.id, otherScope.id]);
      await store.close();
    });

    it("answers key_in_flight to a second create with a key still being written", async () => {
      const store = await (await fresh()).open();
      const pet = { name: "Rex", categoryId: 1n };
      const outcomes = await Promise.all([
        store.create(pet, claim("k")),
        store.create(pet, claim("k")),
      ]);
      assert.deepEqual(outcomes.map((outcome) => outcome.kind), ["created", "key_in_flight"]);
      assert.equal((await store.create(pet, claim("k"))).kind, "replayed");
      await store.close();
    });

    it("keeps pets and keys across a reopen and never reuses an id", async () => {
      const location = await fresh();
      let store = await location.open();
      const pet = { name: "Rex", categoryId: 5n, status: "sold" as const };
      const first = createdPet(await store.create(pet, claim("again")));
      createdPet(await store.create({ name: "Two", categoryId: 6n }));
      await store.close();
      store = await location.open();
      assert.deepEqual(await store.create(pet, claim("again")), { kind: "replayed", pet: first });
      const third = createdPet(await store.create({ name: "Three", categoryId: 7n }));
      assert.equal(third.id, 3);
      assert.deepEqual(await walk(store, "sold", 20), [1]);
      await store.close();
    });

    it("close() waits for creates in flight; a create after close() is unavailable", async () => {
      const location = await fresh();
      const store = await location.open();
      const pending = Array.from(
        { length: 20 },
        (_, i) => store.create({ name: `Z${i}`, categoryId: 1n }),
      );
      await store.close();
      for (const outcome of await Promise.all(pending)) createdPet(outcome);
      assert.equal((await store.create({ name: "late", categoryId: 1n })).kind, "unavailable");
      const reopened = await location.open();
      assert.equal((await walk(reopened, undefined, 100)).length, 20);
      await reopened.close();
    });

    it("registerMetrics() reports animal_store_pets per status, read at each scrape", async () => {
      const store = await (await fresh()).open();
      const registry = new Registry();
      store.registerMetrics(registry);
      for (const status of ["sold", "sold", undefined, "available"] as const) {
        createdPet(await store.create({ name: "M", categoryId: 1n, status }));
      }
      const pets = (await registry.render()).split("\n").filter((l) =>
        l.startsWith("animal_store_pets{")
      );
      assert.deepEqual(pets, [
        'animal_store_pets{status="available"} 1',
        'animal_store_pets{status="pending"} 0',
        'animal_store_pets{status="sold"} 2',
        'animal_store_pets{status="none"} 1',
      ]);
      await store.close();
    });
  });
}
