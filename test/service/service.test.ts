/**
 * The service over real HTTP, started as a process on the runtime under test (TARGET_RUNTIME):
 * the same suite runs on Deno, Bun and the Node build — and against each store: the JSON-lines
 * file, and PostgreSQL (`DATABASE_URL`) when a test cluster is there (test/support/postgres.ts).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  runService,
  startService,
  targetRuntime,
  temporaryDirectory,
  waitFor,
} from "../support/server_process.ts";
import { type Backend, backends, jsonlBackend } from "../support/backends.ts";
import { nextLink } from "../support/link_header.ts";
import {
  parseRawResponse,
  rawExchange,
  type RawResponse,
  streamingExchange,
} from "../support/raw_http.ts";
import { canSeeTcpQueues, serverHasReadAll } from "../support/tcp_queues.ts";
import { serviceApi } from "../support/service_api.ts";
import { useService, withService } from "../support/service_fixture.ts";
import { assertPetGet, knownPetStatus, pastSunset } from "../support/sunset.ts";

const KEY = "http-suite-key";
const runtime = targetRuntime();
const TIMEOUT = { timeout: 60_000 };
const api = serviceApi(KEY);

for (const backend of backends) {
  describe(`service over HTTP on ${runtime}, ${backend.name}`, {
    ...TIMEOUT,
    skip: backend.skip,
  }, () => {
    httpSuite(backend);
  });
}

function httpSuite(backend: Backend) {
  const service = useService({ key: KEY, backend, env: { MAX_BODY_BYTES: "1024" } });
  /**
   * A test of what is answered before any store is asked (body limits, the request log): the
   * same code whatever the store, so it runs on the JSON-lines store only.
   */
  const beforeTheStore = backend === jsonlBackend ? it : () => {};

  it("creates, lists and gets pets with exact int64 categoryIds", async () => {
    const created = await api(service, "/v1/pets", {
      method: "POST",
      body: '{"name":"Rex","categoryId":9223372036854775807,"status":"sold"}',
    });
    assert.equal(created.status, 201);
    const text = await created.text();
    assert.match(text, /"categoryId":9223372036854775807/);
    const id = JSON.parse(text).id;
    assert.equal(created.headers.get("location"), `/v1/pets/${id}`);
    const list = await (await api(service, "/v1/pets?status=sold")).text();
    assert.match(list, /"categoryId":9223372036854775807/);
    const one = await api(service, `/v1/pets/${id}`);
    assert.equal(one.headers.get("sunset"), "Thu, 05 Dec 2030 00:00:00 GMT");
    // The deprecated route answers 410 from its sunset on: assert what is right on the day.
    if (pastSunset()) await assertPetGet(one);
    else assert.match(await one.text(), /"categoryId":9223372036854775807/);
  });

  beforeTheStore(
    "answers an over-size body with 413 and the Error JSON, declared or chunked",
    async () => {
      const big = JSON.stringify({ name: "x".repeat(5000), categoryId: 1 });
      const declared = await api(service, "/v1/pets", { method: "POST", body: big });
      assert.equal(declared.status, 413);
      assert.equal((await declared.json()).code, "payload_too_large");
      const chunks = [
        new TextEncoder().encode(big.slice(0, 800)),
        new TextEncoder().encode(big.slice(800)),
      ];
      const stream = new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(next);
        },
      });
      const chunked = await api(service, "/v1/pets", {
        method: "POST",
        body: stream,
        duplex: "half",
      });
      assert.equal(chunked.status, 413);
      assert.equal((await chunked.json()).code, "payload_too_large");
      // A much larger body than the runtime's own limits still gets our Error JSON.
      const huge = await api(service, "/v1/pets", {
        method: "POST",
        body: "x".repeat(2 * 1024 * 1024),
      });
      assert.equal(huge.status, 413);
      assert.equal((await huge.json()).code, "payload_too_large");
    },
  );

  beforeTheStore(
    "answers a POST announcing a 100 MB body with JSON 401 without a key and JSON 413 with one",
    async () => {
      // Only the head is sent: the answer must come from the app, before any body, and never be
      // the runtime's own bare 413 (Bun's body limit once sat below 100 MB).
      const head = (authorization: string) =>
        `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\n${authorization}` +
        "Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n";
      const cases: [string, number, string][] = [
        ["", 401, "unauthorized"],
        [`Authorization: Bearer ${KEY}\r\n`, 413, "payload_too_large"],
      ];
      for (const [authorization, status, code] of cases) {
        const response = await rawExchange(service.port, head(authorization));
        assert.equal(response.status, status, code);
        assert.match(response.headers["content-type"] ?? "", /^application\/json/, code);
        const error = JSON.parse(response.body);
        assert.equal(error.code, code);
        assert.equal(error.status, status);
      }
    },
  );

  beforeTheStore(
    "delivers the JSON 401 and 413 to a client still streaming a body megabytes over the limit",
    async () => {
      // The app answers before reading such a body. A server that then closes the connection with
      // the body still arriving makes the kernel reset it, and the client can lose the answer
      // (RFC 9112 §9.6): on Node that once happened in about 2 runs of 5. Each run streams 8 MiB,
      // past the 4 MiB the Node adapter reads and drops before it stops reading, and goes on
      // sending for 150 ms after the answer: the connection must not be reset meanwhile.
      const cases: [string, number, string][] = [
        ["", 401, "unauthorized"],
        [`Authorization: Bearer ${KEY}\r\n`, 413, "payload_too_large"],
      ];
      const bodyBytes = 8 * 1024 * 1024;
      for (const chunked of [true, false]) {
        const framing = chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${bodyBytes}`;
        for (const [authorization, status, code] of cases) {
          const head = `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\n${authorization}` +
            `Content-Type: application/json\r\n${framing}\r\n\r\n`;
          for (let run = 1; run <= 5; run++) {
            const what = `${code}, ${chunked ? "chunked" : "Content-Length"}, run ${run}`;
            const response = await streamingExchange(service.port, head, {
              bodyBytes,
              chunked,
              sendingAfterMs: 150,
            });
            assert.equal(response.status, status, what);
            assert.match(response.headers["content-type"] ?? "", /^application\/json/, what);
            assert.equal(JSON.parse(response.body).code, code, what);
          }
        }
      }
    },
  );

  beforeTheStore(
    "delivers the JSON 401 and 413 to a client that goes on streaming a body without end",
    async () => {
      // A client that never ends its body (here 13 MB/s, for a second past the answer) still gets
      // the whole answer, and no reset meanwhile. When the server then closes differs: Node 2 s
      // after the answer (src/runtime/node/unread_body.ts), Bun after about 12 s, Deno 2.9 only once
      // the client stops: Deno.serve reads and drops the rest of a body for as long as it comes,
      // and has no way to close one connection (see src/runtime/deno.ts).
      const cases: [string, number, string][] = [
        ["", 401, "unauthorized"],
        [`Authorization: Bearer ${KEY}\r\n`, 413, "payload_too_large"],
      ];
      const bodyBytes = 1024 * 1024 * 1024; // never all sent: each exchange ends 1 s past the answer
      for (const chunked of [true, false]) {
        const framing = chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${bodyBytes}`;
        for (const [authorization, status, code] of cases) {
          const head = `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\n${authorization}` +
            `Content-Type: application/json\r\n${framing}\r\n\r\n`;
          const what = `${code}, ${chunked ? "chunked" : "Content-Length"}`;
          const response = await streamingExchange(service.port, head, {
            bodyBytes,
            chunked,
            sendingAfterMs: 1_000,
            paceMs: 5,
          });
          assert.equal(response.status, status, what);
          assert.match(response.headers["content-type"] ?? "", /^application\/json/, what);
          assert.equal(JSON.parse(response.body).code, code, what);
        }
      }
    },
  );

  it("answers HEAD with the Content-Length GET sends, for a list page and the deprecated GET", async () => {
    // RFC 9110 §8.6: a HEAD's Content-Length, when sent, is the GET's; 0 would be a lie.
    const created = await api(service, "/v1/pets", {
      method: "POST",
      body: JSON.stringify({ name: "Längë 😀", categoryId: 9007199254740993 }),
    });
    assert.equal(created.status, 201);
    const { id } = await created.json();
    for (const path of ["/v1/pets?limit=3", `/v1/pets/${id}`]) {
      const get = await api(service, path);
      const status = path.includes("?") ? 200 : knownPetStatus();
      assert.equal(get.status, status, path);
      const length = (await get.arrayBuffer()).byteLength;
      assert.ok(length > 2, path);
      assert.equal(get.headers.get("content-length"), String(length), path);
      const head = await api(service, path, { method: "HEAD" });
      assert.equal(head.status, status, path);
      assert.equal(head.headers.get("content-length"), String(length), path);
      assert.equal(await head.text(), "", path);
    }
  });

  it("answers HEAD without a body and OPTIONS with Allow", async () => {
    const head = await api(service, "/v1/pets", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    const options = await fetch(`${service.url}/v1/pets`, { method: "OPTIONS" });
    assert.equal(options.status, 204);
    assert.equal(options.headers.get("allow"), "GET, HEAD, POST, OPTIONS");
  });

  it("answers 401 without a key, 404 for unknown paths and /healthz, /readyz without a key", async () => {
    assert.equal((await fetch(`${service.url}/v1/pets`)).status, 401);
    assert.equal((await api(service, "/v1/store/orders")).status, 404);
    assert.equal((await fetch(`${service.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${service.url}/readyz`)).status, 200);
  });

  beforeTheStore(
    "writes exactly one JSON log line per request, with an ISO time, a generated X-Request-Id when none was sent, and no key",
    async () => {
      const ids = ["log-check-1", "log-check-2", "log-check-3"];
      await api(service, "/v1/pets?limit=1", { headers: { "x-request-id": ids[0] } });
      await api(service, "/v1/nowhere", { headers: { "x-request-id": ids[1] } });
      await fetch(`${service.url}/v1/pets`, { headers: { "x-request-id": ids[2] } });
      const generated = (await api(service, "/healthz")).headers.get("x-request-id") ?? "";
      assert.match(generated, /^[A-Za-z0-9._:=-]{1,200}$/);
      ids.push(generated);
      const linesOf = (id: string) =>
        service.stdout().split("\n").filter((text) =>
          text.includes(`"requestId":${JSON.stringify(id)}`)
        );
      await waitFor(() => ids.every((id) => linesOf(id).length > 0), "the request log lines");
      const statuses = [200, 404, 401, 200];
      for (const [index, id] of ids.entries()) {
        const lines = linesOf(id);
        assert.equal(lines.length, 1, `one line for ${id}: ${lines.join("\n")}`);
        const entry = JSON.parse(lines[0]);
        assert.equal(entry.status, statuses[index], id);
        assert.match(
          entry.time,
          /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
          "an ISO 8601 UTC time",
        );
        assert.ok(Math.abs(Date.parse(entry.time) - Date.now()) < 10 * 60_000, entry.time);
      }
      assert.equal(JSON.parse(linesOf(ids[0])[0]).method, "GET");
      assert.ok(!service.stdout().includes(KEY));
    },
  );

  it("walks every pet of a status exactly once through the Link header while pets are created", async () => {
    const create = (status: string) =>
      api(service, "/v1/pets", {
        method: "POST",
        body: JSON.stringify({ name: "Walker", categoryId: 7, status }),
      }).then(async (response) => {
        assert.equal(response.status, 201);
        return (await response.json()).id as number;
      });
    const before: number[] = [];
    for (let i = 0; i < 7; i++) before.push(await create(i % 2 === 0 ? "pending" : "available"));
    const seen: number[] = [];
    const createdDuring: number[] = [];
    let next: string | undefined = "/v1/pets?status=pending&limit=2";
    while (next !== undefined) {
      const page = await api(service, next);
      assert.equal(page.status, 200);
      const pets = await page.json() as { id: number; status: string }[];
      for (const pet of pets) assert.equal(pet.status, "pending");
      seen.push(...pets.map((pet) => pet.id));
      next = nextLink(page);
      if (next !== undefined) {
        // The next page keeps the walk's query: only the cursor moves.
        const query = new URL(next, service.url).searchParams;
        assert.equal(query.get("limit"), "2", next);
        assert.equal(query.get("status"), "pending", next);
        assert.ok(query.get("cursor"), next);
      }
      // Made before the walk's next page is read, so the walk must still reach it.
      if (next !== undefined && createdDuring.length < 4) {
        createdDuring.push(await create("pending"));
      }
    }
    const pending = before.filter((_, i) => i % 2 === 0);
    assert.deepEqual(seen.slice(0, pending.length), pending);
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b), "ascending");
    assert.equal(new Set(seen).size, seen.length, "no pet twice");
    for (const id of createdDuring) assert.ok(seen.includes(id), `pet ${id} made during the walk`);
  });

  it("replays an Idempotency-Key with 201 and refuses it with another body", async () => {
    const headers = { "idempotency-key": `http-suite-${backend.name.replace(/\W/g, "-")}` };
    const body = '{"name":"Once","categoryId":9007199254740993}';
    const first = await api(service, "/v1/pets", { method: "POST", body, headers });
    assert.equal(first.status, 201);
    const firstText = await first.text();
    assert.match(firstText, /"categoryId":9007199254740993[,}]/);
    const pet = JSON.parse(firstText);
    const again = await api(service, "/v1/pets", {
      method: "POST",
      body: '{ "categoryId": 9007199254740993, "name": "Once" }',
      headers,
    });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(again.headers.get("location"), `/v1/pets/${pet.id}`);
    assert.equal(await again.text(), firstText);
    const reused = await api(service, "/v1/pets", {
      method: "POST",
      body: '{"name":"Other","categoryId":1}',
      headers,
    });
    assert.equal(reused.status, 422);
    assert.equal((await reused.json()).code, "idempotency_key_reused");
    const missing = await api(service, "/v1/pets/999999999");
    assert.equal(missing.status, pastSunset() ? 410 : 404);
    assert.equal((await missing.json()).code, pastSunset() ? "gone" : "not_found");
  });
}

for (const backend of backends) {
  describe(`service shutdown on ${runtime}, ${backend.name}`, {
    ...TIMEOUT,
    skip: backend.skip,
  }, () => {
    it("on SIGTERM answers /readyz 503 and serves new API requests through SHUTDOWN_DELAY, finishes the request in flight, exits 0", async () => {
      await withService({ key: KEY, backend, env: { SHUTDOWN_DELAY: "1" } }, async (service) => {
        let exitCode: number | string;
        try {
          // A slow upload on a raw connection: its head and first chunk are handed to the
          // kernel, the rest waits, so the request is in flight when SIGTERM arrives.
          const socket = connect(service.port, "127.0.0.1");
          const answer = new Promise<RawResponse>((resolve, reject) => {
            let data = Buffer.alloc(0);
            socket.on("data", (more) => {
              data = Buffer.concat([data, more]);
              const parsed = parseRawResponse(data);
              if (parsed !== undefined) resolve(parsed);
            });
            socket.on("error", reject);
            socket.on("close", () => reject(new Error(`closed before an answer: ${data}`)));
          });
          answer.catch(() => {}); // awaited below; a failure then is reported there
          const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
          await new Promise<void>((resolve) =>
            socket.write(
              `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\n` +
                "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
                chunk('{"name":"Slow",'),
              () => resolve(),
            )
          );
          try {
            // In flight once the service has read the head and the first chunk. Where the
            // kernel's queues cannot be seen (not Linux), the request gets a moment instead.
            if (canSeeTcpQueues()) {
              await waitFor(() => serverHasReadAll(service.port), "the service read the request");
            } else await new Promise((resolve) => setTimeout(resolve, 300));
            service.kill("SIGTERM");
            await waitFor(() => /SHUTDOWN_DELAY/.test(service.stdout()), "the drain delay");
            // Listening and serving through the delay, but no longer ready (docs/operations.md,
            // "Stopping behind a proxy").
            const ready = await api(service, "/readyz");
            assert.equal(ready.status, 503);
            assert.equal((await ready.json()).code, "unavailable");
            const served = await api(service, "/v1/pets");
            assert.equal(served.status, 200);
            await served.body?.cancel();
          } finally {
            // Sent whatever happens above, so the request in flight never outlives the test.
            socket.write(chunk('"categoryId":3}') + "0\r\n\r\n");
          }
          try {
            const response = await answer;
            assert.equal(response.status, 201, response.body);
            assert.equal(JSON.parse(response.body).name, "Slow");
          } finally {
            socket.destroy();
          }
        } finally {
          exitCode = await service.stop();
        }
        assert.equal(exitCode, 0);
      });
    });
  });
}

describe(`service lifecycle on ${runtime}`, TIMEOUT, () => {
  it("keeps pets across a restart, exits 0 on SIGTERM and releases the data directory", async () => {
    await withService({ key: KEY }, async (service) => {
      const created = await (await api(service, "/v1/pets", {
        method: "POST",
        body: '{"name":"Keeper","categoryId":-5}',
      })).json();
      const deprecation = (await api(service, `/v1/pets/${created.id}`)).headers.get("deprecation");
      assert.equal(await service.restart(), 0, "SIGTERM exits 0");
      const [fetched] = await (await api(service, "/v1/pets?limit=1")).json();
      assert.deepEqual(fetched, created);
      // The Deprecation date is fixed: the same after a restart, and on every runtime (this
      // suite runs on each) the documented one.
      const again = await api(service, `/v1/pets/${created.id}`);
      await assertPetGet(again, JSON.stringify(created));
      assert.equal(again.headers.get("deprecation"), deprecation);
      assert.equal(deprecation, "@1767225600");
      const next = await (await api(service, "/v1/pets", {
        method: "POST",
        body: '{"name":"Next","categoryId":1}',
      })).json();
      assert.ok(next.id > created.id, "ids keep increasing after a restart");
      assert.equal(await service.stop("SIGINT"), 0);
    });
  });

  it("refuses a second process on the same data directory, naming it", async () => {
    await withService({ key: KEY }, async (first) => {
      const second = await runService([], {
        env: { API_KEYS: KEY, PORT: "0", HOST: "127.0.0.1", DATA_DIR: first.dataDir },
      });
      assert.equal(second.code, 1);
      assert.ok(second.stderr.includes(first.dataDir), second.stderr);
      assert.equal(second.stderr.trim().split("\n").length, 1, "one line");
      assert.equal(await first.stop(), 0);
    });
  });

  it("exits 1 with a one-line message naming the line when a line before the last is damaged", async () => {
    const dir = temporaryDirectory();
    try {
      const line = (id: number) =>
        `${
          JSON.stringify({ type: "pet", v: 1, pet: { id, name: `Pet ${id}`, categoryId: id } })
        }\n`;
      const content = line(1) + line(2) + '{"type":"pet","v":1,"pet":{"id":3\n' + line(4);
      const dataDir = join(dir.path, "data");
      mkdirSync(dataDir);
      writeFileSync(join(dataDir, "pets.jsonl"), content);
      const result = await runService([], {
        env: { API_KEYS: KEY, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir },
      });
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
      assert.match(result.stderr, /\bline 3\b/);
      assert.equal(readFileSync(join(dataDir, "pets.jsonl"), "utf8"), content, "nothing cut");
    } finally {
      dir.remove();
    }
  });

  it("exits 2 with a one-line message naming the bad setting", async () => {
    const dir = temporaryDirectory();
    try {
      // The process's side (exit 2, one line) of each kind of bad setting: a value, a key list, a
      // file; test/config/ names the setting of every bad value in process.
      const cases: [Record<string, string>, string][] = [
        [{ PORT: "abc" }, "PORT"],
        [{ API_KEYS: " , " }, "API_KEYS"],
        [{ API_KEYS_FILE: join(dir.path, "missing.txt") }, "API_KEYS_FILE"],
      ];
      for (const [env, setting] of cases) {
        const result = await runService([], { env: { API_KEYS: KEY, DATA_DIR: dir.path, ...env } });
        assert.equal(result.code, 2, `${JSON.stringify(env)}: ${result.stderr}`);
        assert.ok(result.stderr.includes(setting), result.stderr);
        assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
      }
    } finally {
      dir.remove();
    }
  });

  it("exits 2 naming API_KEYS_FILE when the keys file is empty, holds only comments or cannot be read, and naming RATE_LIMIT for 1.5", async () => {
    const dir = temporaryDirectory();
    try {
      const empty = join(dir.path, "empty.txt");
      writeFileSync(empty, "");
      const comments = join(dir.path, "comments.txt");
      writeFileSync(comments, "# the keys moved\n\n  # nothing here\n");
      // Mode 000 stops everyone but root; as root, a directory where the file should be.
      const unreadable = join(dir.path, "unreadable.txt");
      if (process.getuid?.() === 0) mkdirSync(unreadable);
      else writeFileSync(unreadable, "a-key\n", { mode: 0o000 });
      const cases: [Record<string, string>, string][] = [
        [{ API_KEYS_FILE: empty }, "API_KEYS_FILE"],
        [{ API_KEYS_FILE: comments }, "API_KEYS_FILE"],
        [{ API_KEYS_FILE: unreadable }, "API_KEYS_FILE"],
        [{ API_KEYS: KEY, RATE_LIMIT: "1.5" }, "RATE_LIMIT"],
      ];
      for (const [env, setting] of cases) {
        const result = await runService([], { env: { DATA_DIR: dir.path, ...env } });
        assert.equal(result.code, 2, `${JSON.stringify(env)}: ${result.stderr}`);
        assert.ok(result.stderr.includes(setting), result.stderr);
        assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
      }
    } finally {
      dir.remove();
    }
  });

  it("exits 1 with one line when the data directory cannot be created", async () => {
    const dir = temporaryDirectory();
    try {
      const blocker = join(dir.path, "not-a-directory");
      writeFileSync(blocker, "");
      for (const env of [{ API_KEYS: KEY }, {}] as Record<string, string>[]) {
        const result = await runService([], {
          env: { ...env, DATA_DIR: join(blocker, "data"), PORT: "0", HOST: "127.0.0.1" },
        });
        assert.equal(result.code, 1, result.stderr);
        assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
        assert.ok(result.stderr.includes(blocker), result.stderr);
      }
    } finally {
      dir.remove();
    }
  });

  it("generates a key on first start, prints it on every start, and keeps it private", async () => {
    const dir = temporaryDirectory();
    try {
      const first = await startService({ dataDir: dir.path });
      const key = /"apiKey":"([^"]+)"/.exec(first.stdout())?.[1];
      assert.ok(key !== undefined && key.length >= 22, "a key is printed");
      const keyFile = join(dir.path, "api-key");
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      assert.equal(readFileSync(keyFile, "utf8").trim(), key);
      const ok = await fetch(`${first.url}/v1/pets`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(ok.status, 200);
      assert.equal(await first.stop(), 0);
      const second = await startService({ dataDir: dir.path });
      assert.ok(second.stdout().includes(key), "printed again on the next start");
      assert.equal(await second.stop(), 0);
      const configured = await startService({ dataDir: dir.path, env: { API_KEYS: KEY } });
      assert.ok(!configured.stdout().includes(key), "never printed when keys are configured");
      assert.equal(await configured.stop(), 0);
    } finally {
      dir.remove();
    }
  });

  it("accepts keys from API_KEYS_FILE, including sha256: digests, together with API_KEYS", async () => {
    const dir = temporaryDirectory();
    try {
      const file = join(dir.path, "keys.txt");
      const digest = createHash("sha256").update("digest-key").digest("hex");
      writeFileSync(file, `# keys\nfile-key\n\nsha256:${digest}\n`);
      const service = await startService({
        dataDir: join(dir.path, "data"),
        env: { API_KEYS: KEY, API_KEYS_FILE: file },
      });
      for (const key of [KEY, "file-key", "digest-key"]) {
        const response = await fetch(`${service.url}/v1/pets`, {
          headers: { authorization: `Bearer ${key}` },
        });
        assert.equal(response.status, 200, key);
      }
      const bad = await fetch(`${service.url}/v1/pets`, {
        headers: { authorization: `Bearer sha256:${digest}` },
      });
      assert.equal(bad.status, 401, "the digest itself is not a key");
      assert.equal(await service.stop(), 0);
    } finally {
      dir.remove();
    }
  });
});
