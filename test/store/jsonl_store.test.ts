import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { Registry } from "../../src/observe/metrics_registry.ts";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import { processStartTime } from "../../src/store/jsonl/lock.ts";
import { idempotencyClaim, StoreOpenError } from "../../src/store/store.ts";
import { bytesOf, line, listPets, removeTempDirs, statusOf, tempDir } from "./helpers.ts";

after(removeTempDirs);

/** Opens a store that must fail; returns the error message. */
async function openFails(dataDir: string): Promise<string> {
  const error = await openJsonlStore({ dataDir }).then(
    async (store) => {
      await store.close();
      return assert.fail("the store opened");
    },
    (error) => error,
  );
  assert.ok(error instanceof StoreOpenError, String(error));
  assert.ok(!error.message.includes("\n"), "the message is one line");
  return error.message;
}

describe("openJsonlStore: crash matrix", () => {
  it("creates a missing data directory and data file", async () => {
    const dataDir = join(tempDir(), "nested", "data");
    const store = await openJsonlStore({ dataDir });
    assert.equal(store.size, 0);
    assert.equal(readFileSync(join(dataDir, "pets.jsonl"), "utf8"), "");
    assert.ok(existsSync(join(dataDir, "animal-store.lock")));
    const outcome = await store.create({ name: "Rex", categoryId: 1n });
    assert.equal(outcome.kind === "created" && outcome.pet.id, 1);
    await store.close();
    assert.ok(!existsSync(join(dataDir, "animal-store.lock")), "close() removes the lock");
  });

  it("opens an empty file", async () => {
    const root = tempDir({ "data/pets.jsonl": "" });
    const store = await openJsonlStore({ dataDir: join(root, "data") });
    assert.equal(store.size, 0);
    await store.close();
  });

  it("cuts a torn last line, warns with its byte offset and keeps the earlier pets", async () => {
    const good = line(1) + line(2, { status: "sold" });
    const root = tempDir({ "data/pets.jsonl": good + line(3).slice(0, 40) });
    const warnings: string[] = [];
    const store = await openJsonlStore({
      dataDir: join(root, "data"),
      onWarning: (m) => warnings.push(m),
    });
    assert.equal(store.size, 2);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], new RegExp(`byte offset ${Buffer.byteLength(good)}\\b`));
    assert.equal(readFileSync(join(root, "data/pets.jsonl"), "utf8"), good);
    const outcome = await store.create({ name: "Next", categoryId: 3n });
    assert.equal(outcome.kind === "created" && outcome.pet.id, 3);
    await store.close();
    assert.equal(
      readFileSync(join(root, "data/pets.jsonl"), "utf8"),
      good + line(3, { name: "Next" }),
    );
  });

  it("keeps a whole last record that lacks only its newline, with its key, and adds the newline", async () => {
    // `truncate -s -1 pets.jsonl` on a file whose last pet was answered 201.
    const claim = idempotencyClaim("scope", "retry-2", { name: "Pet 2", categoryId: 2n });
    const good = line(1) + line(2, {}, claim);
    const root = tempDir({ "data/pets.jsonl": good.slice(0, -1) });
    const warnings: string[] = [];
    const store = await openJsonlStore({
      dataDir: join(root, "data"),
      onWarning: (m) => warnings.push(m),
    });
    try {
      assert.equal(store.size, 2);
      assert.deepEqual(warnings.length, 1);
      assert.match(
        warnings[0],
        /^Added the missing newline after the last record of .*pets\.jsonl \(line 2, byte offset \d+\)$/,
      );
      assert.equal(readFileSync(join(root, "data/pets.jsonl"), "utf8"), good, "on disk at once");
      const replay = await store.create({ name: "Pet 2", categoryId: 2n }, claim);
      assert.equal(replay.kind === "replayed" && replay.pet.id, 2, "its key replays it");
      const next = await store.create({ name: "Pet 3", categoryId: 3n });
      assert.equal(next.kind === "created" && next.pet.id, 3);
    } finally {
      await store.close();
    }
    assert.equal(readFileSync(join(root, "data/pets.jsonl"), "utf8"), good + line(3));
  });

  it("still cuts a last record cut anywhere but at its newline", async () => {
    for (const cut of [2, 3, 20]) {
      const root = tempDir({ "data/pets.jsonl": line(1) + line(2).slice(0, -cut) });
      const warnings: string[] = [];
      const store = await openJsonlStore({
        dataDir: join(root, "data"),
        onWarning: (m) => warnings.push(m),
      });
      assert.equal(store.size, 1, `cut ${cut}`);
      assert.match(warnings.join("\n"), /^Cut a torn last line/);
      await store.close();
      assert.equal(readFileSync(join(root, "data/pets.jsonl"), "utf8"), line(1));
    }
  });

  it("refuses a damaged middle line, naming its line number, and leaves the file untouched", async () => {
    const root = tempDir({
      "data/pets.jsonl": line(1) + '{"type":"pet","v":1,"pet":{"id":2,"na\n' + line(3),
    });
    const before = bytesOf(join(root, "data/pets.jsonl"));
    const message = await openFails(join(root, "data"));
    assert.match(message, /^Cannot open store: .*pets\.jsonl line 2 is not valid JSON$/);
    assert.deepEqual(bytesOf(join(root, "data/pets.jsonl")), before);
    assert.ok(!existsSync(join(root, "data/animal-store.lock")), "a failed open releases the lock");
  });

  it("refuses a middle line that is not valid UTF-8, naming its line number", async () => {
    const root = tempDir({ "data/pets.jsonl": line(1) + line(2) + line(3) });
    const path = join(root, "data/pets.jsonl");
    const bytes = bytesOf(path);
    const nameAt = bytes.indexOf(0x0a) + 1 + line(2).indexOf('"name":"') + 8;
    bytes[nameAt] = 0xff;
    writeFileSync(path, bytes);
    assert.match(await openFails(join(root, "data")), /line 2 is not valid UTF-8/);
    assert.deepEqual(bytesOf(path), bytes);
  });

  it("refuses a final complete line that is damaged (it has its newline, so it is no torn write)", async () => {
    const root = tempDir({ "data/pets.jsonl": line(1) + "garbage\n" });
    assert.match(await openFails(join(root, "data")), /line 2 is not valid JSON/);
  });

  it("refuses ids that do not increase", async () => {
    const root = tempDir({ "data/pets.jsonl": line(1) + line(5) + line(5) });
    assert.match(
      await openFails(join(root, "data")),
      /line 3 has id 5, not above the id 5 before it/,
    );
  });

  it("refuses a wrong shape, an unknown record type and a future format version, naming the line", async () => {
    const cases: [string, RegExp][] = [
      [
        '{"type":"order","v":1,"order":{}}\n',
        /line 2 has record type "order", which this version does not know/,
      ],
      [
        '{"type":"pet","v":2,"pet":{"id":2,"name":"A","categoryId":1}}\n',
        /line 2 has format version 2; this version reads only version 1/,
      ],
      [
        '{"type":"pet","v":1,"pet":{"id":2,"name":"A"}}\n',
        /line 2 has a categoryId that is not an integer/,
      ],
      [
        '{"type":"pet","v":1,"pet":{"id":2,"name":"A","categoryId":1,"status":"lost"}}\n',
        /line 2 has an unknown pet status/,
      ],
      [
        '{"type":"pet","v":1,"pet":{"id":2, "name":"A","categoryId":1}}\n',
        /line 2 is not in the exact form/,
      ],
      ["[1]\n", /line 2 is not a JSON object/],
    ];
    for (const [record, expected] of cases) {
      const root = tempDir({ "data/pets.jsonl": line(1) + record });
      assert.match(await openFails(join(root, "data")), expected);
    }
  });

  it("keeps int64 categoryIds exactly through the file and a reopen", async () => {
    const dataDir = join(tempDir(), "data");
    const values = [9223372036854775807n, -9223372036854775808n, 9007199254740993n, 0n];
    let store = await openJsonlStore({ dataDir });
    for (const categoryId of values) await store.create({ name: "Big", categoryId });
    await store.close();
    store = await openJsonlStore({ dataDir });
    values.forEach((categoryId, i) => {
      assert.equal(
        store.get(i + 1)?.json,
        `{"id":${i + 1},"name":"Big","categoryId":${categoryId}}`,
      );
    });
    await store.close();
    const text = readFileSync(join(dataDir, "pets.jsonl"), "utf8");
    for (const value of values) assert.ok(text.includes(`"categoryId":${value}}`));
  });

  it("refuses a categoryId outside int64 or written as -0", async () => {
    for (const literal of ["9223372036854775808", "-9223372036854775809", "-0", "01"]) {
      const root = tempDir({
        "data/pets.jsonl":
          `{"type":"pet","v":1,"pet":{"id":1,"name":"A","categoryId":${literal}}}\n`,
      });
      assert.match(await openFails(join(root, "data")), /line 1 /, literal);
    }
  });

  it("reads back names, statuses and claims after a reopen", async () => {
    const dataDir = join(tempDir(), "data");
    let store = await openJsonlStore({ dataDir });
    const name = 'Quote " backslash \\ emoji 😀 é';
    await store.create({ name, categoryId: -5n, status: "pending" }, {
      scope: "s",
      key: 'k"}',
      digest: "d",
    });
    await store.close();
    store = await openJsonlStore({ dataDir });
    const pet = store.get(1);
    assert.equal(statusOf(pet), "pending");
    assert.deepEqual(JSON.parse(pet!.json), { id: 1, name, categoryId: -5, status: "pending" });
    await store.close();
  });
});

describe("openJsonlStore: directory lock", () => {
  function writeLock(dataDir: string, owner: object): void {
    writeFileSync(join(dataDir, "animal-store.lock"), JSON.stringify(owner));
  }

  it("refuses a second open of a directory in use, naming the directory and the pid", async () => {
    const dataDir = join(tempDir(), "data");
    const store = await openJsonlStore({ dataDir });
    const message = await openFails(dataDir);
    assert.equal(
      message,
      `Cannot open store: data directory ${dataDir} is in use by process ${process.pid}`,
    );
    await store.close();
  });

  it("waits up to lockWaitMs for a live owner to let go of the directory", async () => {
    const dataDir = join(tempDir(), "data");
    const first = await openJsonlStore({ dataDir });
    setTimeout(() => void first.close(), 200);
    const second = await openJsonlStore({ dataDir, lockWaitMs: 3_000 });
    assert.equal(second.size, 0);
    await second.close();
  });

  it("refuses a lock held by a running process (pid and start time match)", async () => {
    const dataDir = join(tempDir({ "data/pets.jsonl": "" }), "data");
    const startTime = await processStartTime(process.pid);
    writeLock(dataDir, { pid: process.pid, startTime, hostname: hostname() });
    assert.match(
      await openFails(dataDir),
      new RegExp(`data directory ${dataDir} is in use by process ${process.pid}$`),
    );
    assert.ok(existsSync(join(dataDir, "animal-store.lock")), "the owner's lock stays");
  });

  it("takes over the lock of a process that is gone", async () => {
    const dataDir = join(tempDir({ "data/pets.jsonl": line(1) }), "data");
    const dead = spawnSync("true").pid;
    writeLock(dataDir, { pid: dead, startTime: "1", hostname: hostname() });
    const store = await openJsonlStore({ dataDir });
    assert.equal(store.size, 1);
    assert.equal(
      JSON.parse(readFileSync(join(dataDir, "animal-store.lock"), "utf8")).pid,
      process.pid,
    );
    await store.close();
  });

  it("takes over a lock naming this pid that this process does not hold (container restart as pid 1)", async () => {
    const dataDir = join(tempDir({ "data/pets.jsonl": "" }), "data");
    writeLock(dataDir, { pid: process.pid, startTime: null, hostname: hostname() });
    const store = await openJsonlStore({ dataDir });
    await assert.rejects(openJsonlStore({ dataDir }), /in use by process/);
    await store.close();
  });

  it("takes over the lock of a reused pid (running, but started at another time)", async () => {
    const dataDir = join(tempDir({ "data/pets.jsonl": "" }), "data");
    writeLock(dataDir, { pid: process.pid, startTime: "1", hostname: hostname() });
    const store = await openJsonlStore({ dataDir });
    await store.close();
  });

  for (const [what, content] of [["empty", ""], ["truncated", '{"pid":12'], ["foreign", "x\n"]]) {
    it(`takes over a ${what} lock file at once (no live owner writes one)`, async () => {
      const dataDir = join(
        tempDir({ "data/pets.jsonl": line(1), "data/animal-store.lock": content }),
        "data",
      );
      const started = performance.now();
      const store = await openJsonlStore({ dataDir });
      assert.ok(performance.now() - started < 1_000, "no wait for an unreadable lock");
      assert.equal(store.size, 1);
      await store.close();
    });
  }

  it("writes the lock whole before it appears, and leaves no draft behind", async () => {
    const dataDir = join(tempDir(), "data");
    const store = await openJsonlStore({ dataDir });
    const owner = JSON.parse(readFileSync(join(dataDir, "animal-store.lock"), "utf8"));
    assert.equal(owner.pid, process.pid);
    assert.deepEqual(readdirSync(dataDir).sort(), ["animal-store.lock", "pets.jsonl"]);
    await store.close();
    assert.deepEqual(readdirSync(dataDir), ["pets.jsonl"]);
  });

  it("refuses a lock written on another host", async () => {
    const dataDir = join(tempDir({ "data/pets.jsonl": "" }), "data");
    writeLock(dataDir, { pid: 1, startTime: "1", hostname: "elsewhere.example" });
    assert.match(await openFails(dataDir), /in use by process 1 on host elsewhere\.example/);
  });
});

describe("JsonlStore", () => {
  it("listJson() pages by status with afterId, and hasMore is exact at the boundaries", async () => {
    const dataDir = join(tempDir(), "data");
    const store = await openJsonlStore({ dataDir });
    const statuses = ["sold", "available", "sold", undefined, "sold", "pending", "sold"] as const;
    for (const status of statuses) {
      await store.create(
        status === undefined
          ? { name: "P", categoryId: 1n }
          : { name: "P", categoryId: 1n, status },
      );
    }
    const ids = (page: { pets: readonly { id: number }[] }) => page.pets.map((pet) => pet.id);
    let page = await listPets(store, { status: "sold", afterId: 0, limit: 2 });
    assert.deepEqual([ids(page), page.hasMore], [[1, 3], true]);
    page = await listPets(store, { status: "sold", afterId: 3, limit: 2 });
    assert.deepEqual([ids(page), page.hasMore], [[5, 7], false], "a full last page says no more");
    page = await listPets(store, { status: "sold", afterId: 7, limit: 2 });
    assert.deepEqual([ids(page), page.hasMore], [[], false]);
    page = await listPets(store, { status: undefined, afterId: 2, limit: 5 });
    assert.deepEqual([ids(page), page.hasMore], [[3, 4, 5, 6, 7], false]);
    page = await listPets(store, { status: undefined, afterId: 2, limit: 4 });
    assert.deepEqual([ids(page), page.hasMore], [[3, 4, 5, 6], true]);
    assert.equal(
      statusOf((await listPets(store, { status: "pending", afterId: 0, limit: 20 })).pets[0]),
      "pending",
    );
    assert.equal(statusOf(store.get(4)), undefined);
    assert.equal(store.get(8), undefined);
    assert.equal(store.get(0), undefined);
    await store.close();
  });

  it("listJson() gives the matching pets' texts joined as a JSON array, replayed or new", async () => {
    const dataDir = join(tempDir(), "data");
    const names = ["Rex", "Ünïcødé 😀", 'q"uote\\', "Tom"];
    let store = await openJsonlStore({ dataDir });
    for (const [i, name] of names.entries()) {
      await store.create({
        name,
        categoryId: 9223372036854775807n,
        status: i % 2 ? "sold" : undefined,
      });
    }
    await store.close();
    store = await openJsonlStore({ dataDir });
    await store.create({ name: "New", categoryId: -1n, status: "sold" });
    const queries = [
      { status: undefined, afterId: 0, limit: 20 },
      { status: undefined, afterId: 1, limit: 2 },
      { status: "sold", afterId: 0, limit: 2 },
      { status: "sold", afterId: 4, limit: 2 },
      { status: "pending", afterId: 0, limit: 20 },
    ] as const;
    for (const query of queries) {
      const page = await listPets(store, query);
      const json = store.listJson(query);
      const joined = `[${page.pets.map((pet) => pet.json).join(",")}]`;
      assert.equal(new TextDecoder().decode(json.body), joined, JSON.stringify(query));
      assert.equal(json.hasMore, page.hasMore);
      assert.equal(json.lastId, page.pets.at(-1)?.id ?? 0);
    }
    await store.close();
  });

  it("close() waits for pending creates, and a create after close() is unavailable", async () => {
    const dataDir = join(tempDir(), "data");
    const store = await openJsonlStore({ dataDir });
    const pending = store.create({ name: "Late", categoryId: 1n });
    await store.close();
    assert.equal((await pending).kind, "created");
    assert.equal((await store.create({ name: "After", categoryId: 1n })).kind, "unavailable");
    const reopened = await openJsonlStore({ dataDir });
    assert.equal(reopened.size, 1);
    await reopened.close();
  });
});

describe("JsonlStore: the data file stays the one at its path", () => {
  const mistakes: [string, (path: string, dataDir: string) => void][] = [
    ["removed", (path) => unlinkSync(path)],
    ["renamed", (path) => renameSync(path, `${path}.old`)],
    ["replaced by another file", (path) => {
      copyFileSync(path, `${path}.copy`);
      renameSync(`${path}.copy`, path);
    }],
    ["removed with its directory", (_path, dataDir) => rmSync(dataDir, { recursive: true })],
  ];
  for (const [mistake, make] of mistakes) {
    it(`refuses the next create once the data file was ${mistake}, says so naming the file, and goes unavailable`, async () => {
      const dataDir = join(tempDir(), "data");
      const path = join(dataDir, "pets.jsonl");
      const errors: string[] = [];
      const store = await openJsonlStore({ dataDir, onError: (m) => errors.push(m) });
      assert.equal((await store.create({ name: "Before", categoryId: 1n })).kind, "created");
      make(path, dataDir);
      const outcomes = await Promise.all(
        [1, 2, 3].map((i) => store.create({ name: `After ${i}`, categoryId: 2n })),
      );
      for (const outcome of outcomes) assert.equal(outcome.kind, "unavailable");
      assert.equal(store.size, 1, "readers never saw the pets written to the old file");
      assert.equal(store.isAvailable(), false);
      assert.equal(errors.length, 1);
      assert.ok(errors[0].includes(path), errors[0]);
      assert.equal((await store.create({ name: "Later", categoryId: 3n })).kind, "unavailable");
      await store.close();
    });
  }
});

describe("JsonlStore limits", () => {
  it("create() refuses a record too large for one line instead of writing an unreadable file", async () => {
    const dataDir = join(tempDir(), "data");
    const store = await openJsonlStore({ dataDir });
    const outcome = await store.create({ name: "x".repeat(30_000), categoryId: 1n });
    assert.equal(outcome.kind, "unavailable");
    await store.close();
    assert.equal(readFileSync(join(dataDir, "pets.jsonl"), "utf8"), "");
  });

  it("create() stops at id 2^53 - 1: the creates past it are refused, nothing written, and the file reopens", async () => {
    const claim = idempotencyClaim("scope", "last", { name: "Last", categoryId: 1n });
    const root = tempDir({ "data/pets.jsonl": line(9007199254740989) });
    const path = join(root, "data/pets.jsonl");
    let store = await openJsonlStore({ dataDir: join(root, "data") });
    // Three creates in one batch, two ids left.
    const outcomes = await Promise.all([
      store.create({ name: "Pet 9007199254740990", categoryId: 9007199254740990n }),
      store.create({ name: "Last", categoryId: 1n }, claim),
      store.create({ name: "Past", categoryId: 3n }),
    ]);
    assert.deepEqual(outcomes.map((o) => o.kind === "created" ? o.pet.id : o), [
      9007199254740990,
      9007199254740991,
      {
        kind: "unavailable",
        reason: "the id space is exhausted: ids stop at 9007199254740991",
        idSpaceExhausted: true,
      },
    ]);
    const full = readFileSync(path, "utf8");
    const refused = await store.create({ name: "Later", categoryId: 4n });
    assert.equal(refused.kind === "unavailable" && refused.idSpaceExhausted, true);
    const replay = await store.create({ name: "Last", categoryId: 1n }, claim);
    assert.equal(replay.kind === "replayed" && replay.pet.id, 9007199254740991, "a retry replays");
    assert.equal(store.isAvailable(), true, "reads go on");
    await store.close();
    assert.equal(readFileSync(path, "utf8"), full, "nothing written for a refused create");

    store = await openJsonlStore({ dataDir: join(root, "data") });
    try {
      assert.equal(store.size, 3, "the file reopens with every pet answered");
      assert.equal(store.get(9007199254740991)?.json.includes('"name":"Last"'), true);
      const again = await store.create({ name: "Again", categoryId: 5n });
      assert.equal(again.kind === "unavailable" && again.idSpaceExhausted, true);
    } finally {
      await store.close();
    }
  });
});

describe("JsonlStore metrics", () => {
  /** The samples of a scrape of `registry`, by series. */
  async function samples(registry: Registry): Promise<Map<string, number>> {
    const lines = (await registry.render()).split("\n").filter((l) => l !== "" && l[0] !== "#");
    return new Map(lines.map((l) => [l.slice(0, l.lastIndexOf(" ")), Number(l.split(" ").at(-1))]));
  }

  it("registerMetrics() reports pets per status, the durable file bytes and the keys at scrape time", async () => {
    const dir = tempDir({
      "data/pets.jsonl": line(1, { status: "sold" }) + line(2) +
        line(3, { status: "available" }, { scope: "s", key: "k", digest: "d".repeat(64) }),
    });
    const dataDir = join(dir, "data");
    const store = await openJsonlStore({ dataDir });
    const registry = new Registry();
    store.registerMetrics(registry);
    await store.create({ name: "Rex", categoryId: 1n, status: "pending" });
    const scraped = await samples(registry);
    assert.deepEqual(
      [
        'animal_store_pets{status="available"}',
        'animal_store_pets{status="pending"}',
        'animal_store_pets{status="sold"}',
        'animal_store_pets{status="none"}',
        "animal_store_jsonl_data_file_bytes",
        "animal_store_jsonl_idempotency_keys",
      ].map((series) => scraped.get(series)),
      [1, 1, 1, 1, readFileSync(join(dataDir, "pets.jsonl")).byteLength, 1],
    );
    await store.close();
  });

  it("registerMetrics() observes each batch's fdatasync: seconds and creates", async () => {
    const store = await openJsonlStore({ dataDir: tempDir() });
    const registry = new Registry();
    store.registerMetrics(registry);
    // Created in one tick: one batch of three.
    await Promise.all([1, 2, 3].map((n) => store.create({ name: `P${n}`, categoryId: 1n })));
    await store.create({ name: "P4", categoryId: 1n });
    await store.close();
    const scraped = await samples(registry);
    assert.deepEqual(
      [
        'animal_store_jsonl_batch_size_bucket{le="1"}',
        'animal_store_jsonl_batch_size_bucket{le="4"}',
        "animal_store_jsonl_batch_size_sum",
        "animal_store_jsonl_batch_size_count",
        "animal_store_jsonl_fsync_duration_seconds_count",
      ].map((series) => scraped.get(series)),
      [1, 2, 4, 2, 2],
    );
    const seconds = scraped.get("animal_store_jsonl_fsync_duration_seconds_sum")!;
    assert.ok(seconds >= 0 && seconds < 20, String(seconds));
  });
});
