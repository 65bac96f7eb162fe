/**
 * Shutdown, on the runtime under test (TARGET_RUNTIME). It drains without dropping a request: a
 * request on a connection already open is answered as usual with `Connection: close`, an idle
 * keep-alive connection is closed only after a quiet period, new connections are refused once the
 * listener closes, and SHUTDOWN_DELAY keeps everything served but `/readyz` for its seconds. It
 * has a deadline: clients that trickle a head or a body, or never read, hold the process no
 * longer than SHUTDOWN_TIMEOUT; it still exits 0 with the store closed.
 */
import assert from "node:assert/strict";
import { connect, createServer, type Socket } from "node:net";
import { describe, it } from "node:test";
import {
  type ServiceProcess,
  startService,
  targetRuntime,
  temporaryDirectory,
} from "../support/server_process.ts";
import { Buffer } from "node:buffer";
import { parseRawResponse, type RawResponse } from "../support/raw_http.ts";
import { serviceApi } from "../support/service_api.ts";
import { withService } from "../support/service_fixture.ts";

const KEY = "shutdown-suite-key";
const runtime = targetRuntime();
const api = serviceApi(KEY);

/** A raw connection that has been accepted by the service; its bytes are never read. */
async function openConnection(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("error", reject);
  });
  return socket;
}

/** Sends one byte of `text` every 200 ms until the socket closes; returns the stopper. */
function trickle(socket: Socket, text: string): () => void {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed) return clearInterval(timer);
    socket.write(text[at % text.length]);
    at++;
  }, 200);
  return () => clearInterval(timer);
}

/** Resolves with the milliseconds from now until the socket is closed by the other end. */
function closedAfter(socket: Socket, started: number): Promise<number> {
  return new Promise((resolve) => {
    if (socket.destroyed) resolve(performance.now() - started);
    socket.once("close", () => resolve(performance.now() - started));
    socket.resume(); // reads (and drops) whatever arrives, so an end is seen
  });
}

/**
 * Sends `request` on an open connection and reads one response framed by its Content-Length
 * (answers are small); rejects when the connection closes first or nothing whole comes in 5 s.
 */
function exchange(socket: Socket, request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const done = (outcome: RawResponse | Error) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("close", onClose);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const response = parseRawResponse(data);
      if (response !== undefined) done(response);
    };
    const onClose = () => done(new Error(`connection closed before an answer: ${data}`));
    const timer = setTimeout(() => done(new Error(`no whole answer in 5 s: ${data}`)), 5_000);
    socket.on("data", onData);
    socket.once("close", onClose);
    socket.write(request);
  });
}

/** Resolves with the code of a connect to `port`: "connected" (then closed) or the error code. */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function stopTimed(service: ServiceProcess): Promise<{ code: number | string; ms: number }> {
  const started = performance.now();
  service.kill("SIGTERM");
  const code = await Promise.race([
    service.exited,
    new Promise<string>((resolve) => setTimeout(() => resolve("still running"), 20_000)),
  ]);
  if (code === "still running") service.kill("SIGKILL");
  return { code, ms: performance.now() - started };
}

describe(`shutdown on ${runtime}`, { timeout: 60_000 }, () => {
  it("after SIGTERM answers a request on an open connection as usual with Connection: close, closes an idle one only after the quiet period, then refuses new connections", async () => {
    await withService({ key: KEY, env: { SHUTDOWN_TIMEOUT: "3" } }, async (service) => {
      const busy = await openConnection(service.port);
      const idle = await openConnection(service.port);
      const held = await openConnection(service.port);
      const get = `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`;
      try {
        for (const socket of [busy, idle]) {
          const first = await exchange(socket, get);
          assert.equal(first.status, 200);
          assert.notEqual(first.headers.connection, "close");
        }
        // A create whose body is still coming keeps the process in its grace period, so the
        // closed listener can be seen.
        held.write(
          `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"',
        );
        await sleep(200);
        const started = performance.now();
        const idleClosed = closedAfter(idle, started);
        const busyClosed = new Promise<void>((resolve) => busy.once("close", () => resolve()));
        service.kill("SIGTERM");
        await sleep(150);
        // The pooled connection's next request, sent after the signal: served, and retired.
        const answer = await exchange(busy, get);
        assert.equal(answer.status, 200, answer.body);
        assert.equal(answer.headers.connection, "close");
        busy.resume();
        await Promise.race([busyClosed, sleep(3_000)]);
        assert.ok(
          busy.destroyed || busy.readableEnded,
          "the connection was closed after the answer",
        );
        // The idle one was not closed the instant of the signal, but within the quiet period.
        const idleMs = await idleClosed;
        assert.ok(
          idleMs > 300,
          `an idle connection was closed ${Math.round(idleMs)} ms after SIGTERM`,
        );
        assert.ok(idleMs < 2_000, `an idle connection stayed open ${Math.round(idleMs)} ms`);
        // The listener is closed: a new connection is refused (nothing was sent on it).
        assert.equal(await connectOutcome(service.port), "ECONNREFUSED");
        const code = await Promise.race([service.exited, sleep(8_000).then(() => "running")]);
        assert.equal(code, 0, service.stderr());
      } finally {
        for (const socket of [busy, idle, held]) socket.destroy();
      }
    });
  });

  it("with SHUTDOWN_DELAY answers /readyz 503 and serves everything else as before for that long, then stops; a second signal ends the delay", async () => {
    await withService(
      { key: KEY, env: { SHUTDOWN_DELAY: "2", SHUTDOWN_TIMEOUT: "1" } },
      async (service) => {
        const pooled = await openConnection(service.port);
        try {
          const get = `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`;
          assert.equal((await exchange(pooled, get)).status, 200);
          const started = performance.now();
          service.kill("SIGTERM");
          await sleep(300);
          // New connections are accepted; /readyz says 503, the API answers as before.
          const ready = await fetch(`${service.url}/readyz`);
          assert.equal(ready.status, 503);
          await ready.body?.cancel();
          const created = await api(service, "/v1/pets", {
            method: "POST",
            body: '{"name":"During the delay","categoryId":1}',
          });
          assert.equal(created.status, 201);
          const again = await exchange(pooled, get);
          assert.equal(again.status, 200);
          assert.notEqual(again.headers.connection, "close", "keep-alive as before the signal");
          const code = await Promise.race([service.exited, sleep(10_000).then(() => "running")]);
          const ms = performance.now() - started;
          assert.equal(code, 0, service.stderr());
          assert.ok(ms > 1_900, `exited ${Math.round(ms)} ms after SIGTERM, SHUTDOWN_DELAY=2`);
          assert.ok(ms < 2_000 + 1_000 + 3_000, `exited ${Math.round(ms)} ms after SIGTERM`);
        } finally {
          pooled.destroy();
        }
      },
    );
    await withService({ key: KEY, env: { SHUTDOWN_DELAY: "120" } }, async (service) => {
      service.kill("SIGTERM");
      await sleep(300);
      assert.equal((await fetch(`${service.url}/readyz`)).status, 503);
      const started = performance.now();
      service.kill("SIGTERM");
      const code = await Promise.race([service.exited, sleep(8_000).then(() => "running")]);
      assert.equal(code, 0, service.stderr());
      assert.ok(performance.now() - started < 5_000);
      assert.match(service.stdout(), /ending SHUTDOWN_DELAY early/);
    });
  });

  it("closes idle keep-alive connections and ones that sent nothing after the quiet period, exits 0 well before SHUTDOWN_TIMEOUT", async () => {
    await withService({ key: KEY, env: { SHUTDOWN_TIMEOUT: "20" } }, async (service) => {
      const socket = await openConnection(service.port);
      // A spare connection, opened ahead of need as HTTP clients do, that has sent nothing.
      const spare = await openConnection(service.port);
      try {
        // One request answered, then the connection stays open and idle (keep-alive).
        socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        await new Promise((resolve) => socket.once("data", resolve));
        const started = performance.now();
        // Only the keep-alive one is watched for its close: Bun defers accepting a connection
        // until it sends data, so the spare's server end vanishes with the process unannounced.
        const closed = closedAfter(socket, started);
        const { code, ms } = await stopTimed(service);
        assert.equal(code, 0, service.stderr());
        assert.ok(ms < 5_000, `exited ${Math.round(ms)} ms after SIGTERM, SHUTDOWN_TIMEOUT=20`);
        assert.ok(await closed < 5_000);
      } finally {
        socket.destroy();
        spare.destroy();
      }
    });
  });

  it("cuts trickling heads and bodies and a client that never reads at SHUTDOWN_TIMEOUT, exits 0 within it + 3 s, keeps every 201", async () => {
    const dir = temporaryDirectory();
    const sockets: Socket[] = [];
    const stoppers: (() => void)[] = [];
    try {
      const service = await startService({
        dataDir: dir.path,
        env: { API_KEYS: KEY, SHUTDOWN_TIMEOUT: "2" },
      });
      const created = await api(service, "/v1/pets", {
        method: "POST",
        body: '{"name":"Kept","categoryId":1}',
      });
      assert.equal(created.status, 201);
      // An unauthenticated head that never ends.
      const head = await openConnection(service.port);
      head.write("GET /v1/pets HTTP/1.1\r\nHost: x\r\n");
      stoppers.push(trickle(head, "X-Slow: yes\r\n"));
      // A keyed create whose body never ends, and one that got its 401 and keeps sending.
      const body = await openConnection(service.port);
      body.write(
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"',
      );
      stoppers.push(trickle(body, "a"));
      const unauthorized = await openConnection(service.port);
      unauthorized.write(
        "POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
          'Content-Length: 1000\r\n\r\n{"name":"',
      );
      stoppers.push(trickle(unauthorized, "a"));
      // A client that asks for pages and never reads the answers.
      const reader = await openConnection(service.port);
      reader.pause();
      const page =
        `GET /v1/pets?limit=100 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`;
      reader.write(page.repeat(2_000));
      sockets.push(head, body, unauthorized, reader);
      await new Promise((resolve) => setTimeout(resolve, 500));

      const { code, ms } = await stopTimed(service);
      assert.equal(code, 0, `${service.stdout().slice(-1000)}\n${service.stderr()}`);
      assert.ok(ms < 5_000, `exited ${Math.round(ms)} ms after SIGTERM, SHUTDOWN_TIMEOUT=2`);
      assert.ok(ms > 1_500, `exited after ${Math.round(ms)} ms: requests in flight got no grace`);
      const lines = service.stdout().split("\n");
      assert.ok(lines.some((line) => line.includes('"msg":"stopped"')), "no stopped line");
      const errors = lines.filter((line) => line.includes('"level":"error"'));
      assert.deepEqual(errors, [], "a client cut off at the deadline is not a server error");

      // The store was closed cleanly: a restart on the same directory starts at once (the lock
      // was released) and serves the pet answered 201.
      const again = await startService({ dataDir: dir.path, env: { API_KEYS: KEY } });
      try {
        const pets = await (await api(again, "/v1/pets")).json();
        assert.deepEqual(pets.map((pet: { name: string }) => pet.name), ["Kept"]);
        assert.doesNotMatch(again.stdout(), /torn|cut off/i);
      } finally {
        await again.stop();
      }
    } finally {
      for (const stop of stoppers) stop();
      for (const socket of sockets) socket.destroy();
      dir.remove();
    }
  });

  it("with SHUTDOWN_TIMEOUT=0 closes a connection in flight at once", async () => {
    await withService({ key: KEY, env: { SHUTDOWN_TIMEOUT: "0" } }, async (service) => {
      const body = await openConnection(service.port);
      try {
        body.write(
          `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"',
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        const { code, ms } = await stopTimed(service);
        assert.equal(code, 0);
        assert.ok(ms < 3_000, `exited ${Math.round(ms)} ms after SIGTERM, SHUTDOWN_TIMEOUT=0`);
      } finally {
        body.destroy();
      }
    });
  });
});

/** Holds a port the way an instance still stopping does, until `release` (or after `ms`). */
async function holdPort(ms: number): Promise<{ port: number; release: () => Promise<void> }> {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  const { port } = holder.address() as { port: number };
  const released = new Promise<void>((resolve) => holder.once("close", resolve));
  const timer = setTimeout(() => holder.close(), ms);
  const release = () => {
    clearTimeout(timer);
    if (holder.listening) holder.close();
    return released;
  };
  return { port, release };
}

describe(`a restart on the port of an instance still stopping, on ${runtime}`, () => {
  it("waits for the port to be let go (up to 1.5 s) instead of failing to start", async () => {
    const dir = temporaryDirectory();
    const { port, release } = await holdPort(700);
    try {
      const service = await startService({
        dataDir: dir.path,
        env: { API_KEYS: KEY, PORT: String(port) },
      });
      await service.stop();
    } finally {
      await release();
      dir.remove();
    }
  });

  it("still exits 1 naming the address when the port stays taken", async () => {
    const dir = temporaryDirectory();
    const { port, release } = await holdPort(10_000);
    try {
      const started = performance.now();
      await assert.rejects(
        startService({ dataDir: dir.path, env: { API_KEYS: KEY, PORT: String(port) } }),
        (error: Error) => /exited with 1/.test(error.message) && error.message.includes(`:${port}`),
      );
      const ms = performance.now() - started;
      assert.ok(ms > 1_400, `gave up after ${Math.round(ms)} ms, before the 1.5 s wait`);
    } finally {
      await release();
      dir.remove();
    }
  });
});
