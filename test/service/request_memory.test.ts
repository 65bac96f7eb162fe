/**
 * "A request costs memory in proportion to its size", over raw sockets on the runtime under
 * test: a body sent in one-byte chunks costs no more memory than the same body sent whole, and
 * is answered correctly; a client that pipelines requests and never reads the answers costs a
 * bounded amount of memory per connection, and the service goes on serving others.
 *
 * The bounds are the contract's allowance (96 MiB above the RSS after start) where one request
 * is judged, and a measured figure per connection where connections are: node:http stops reading
 * a connection whose answers are not read only once it has parsed the whole read it was in (up to
 * 64 KiB of requests, about 1,500 GETs of the OpenAPI document), which costs about 15 MiB
 * (docs/operations.md, "Memory").
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { connect, type Socket } from "node:net";
import { describe, it } from "node:test";
import { cpuTicks, residentBytes } from "../support/process_stats.ts";
import { rawExchange, rawStatusLine } from "../support/raw_http.ts";
import { targetRuntime } from "../support/server_process.ts";
import { useService } from "../support/service_fixture.ts";

const KEY = "request-memory-key";
const runtime = targetRuntime();
const MiB = 1024 * 1024;
/** The contract's allowance above RSS after start. */
const ALLOWANCE = 96 * MiB;
/** The body's size, and so its number of one-byte chunks: within the default MAX_BODY_BYTES. */
const BODY_BYTES = 60_000;
/** CPU a body of one-byte chunks may cost: linear is a fraction of a second (10 s were seen). */
const BODY_CPU_TICKS = 200;
/** Connections that pipeline without reading, and what each may cost (about 15 MiB on Node). */
const UNREAD_CONNECTIONS = 4;
const PER_UNREAD_CONNECTION = 24 * MiB;
/** Requests each such connection sends at most (the kernel's buffers take about 90,000). */
const UNREAD_REQUESTS = 40_000;

/** `{"name":"Rex","categoryId":1}` padded with JSON whitespace to `size` bytes. */
function paddedPet(size: number): string {
  const pet = '{"name":"Rex","categoryId":1}';
  return pet.slice(0, -1) + " ".repeat(size - pet.length) + "}";
}

/** A create whose body of `body.length` bytes is sent in chunks of one byte each. */
function oneByteChunkedCreate(body: string): string {
  const chunks = Array.from(body, (byte) => `1\r\n${byte}\r\n`).join("");
  return `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n` +
    `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}0\r\n\r\n`;
}

/**
 * Opens a connection that sends `count` pipelined `request`s, as fast as the socket takes them,
 * and never reads an answer.
 */
function pipelineWithoutReading(port: number, request: string, count: number): Socket {
  const batch = Buffer.from(request.repeat(100));
  const socket = connect(port, "127.0.0.1");
  socket.pause(); // never read
  socket.on("error", () => {});
  let sent = 0;
  const pump = () => {
    while (sent < count) {
      sent += 100;
      if (!socket.write(batch)) return void socket.once("drain", pump);
    }
  };
  socket.once("connect", pump);
  return socket;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(`memory per request on ${runtime}`, { timeout: 60_000 }, () => {
  const service = useService({ key: KEY });

  it(`answers a body of ${BODY_BYTES} one-byte chunks within the memory and CPU of its size`, async () => {
    const afterStart = residentBytes(service);
    const ticksBefore = cpuTicks(service.child.pid!);
    const response = await rawExchange(service.port, oneByteChunkedCreate(paddedPet(BODY_BYTES)));
    const ticks = cpuTicks(service.child.pid!) - ticksBefore;
    const after = residentBytes(service);
    assert.equal(response.status, 201, response.body);
    assert.match(response.body, /^\{"id":\d+,"name":"Rex","categoryId":1\}$/);
    const figures = `RSS after start ${(afterStart / MiB).toFixed(1)} MiB, after the body ` +
      `${(after / MiB).toFixed(1)} MiB, ${ticks} CPU ticks`;
    assert.ok(after <= afterStart + ALLOWANCE, figures);
    assert.ok(ticks <= BODY_CPU_TICKS, figures);
  });

  it("stops reading from clients that pipeline requests and never read the answers", async () => {
    const afterStart = residentBytes(service);
    const request = "GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n";
    const sockets = Array.from(
      { length: UNREAD_CONNECTIONS },
      () => pipelineWithoutReading(service.port, request, UNREAD_REQUESTS),
    );
    try {
      await sleep(3_000);
      const after = residentBytes(service);
      const bound = afterStart + UNREAD_CONNECTIONS * PER_UNREAD_CONNECTION;
      assert.ok(
        after <= bound,
        `RSS after start ${(afterStart / MiB).toFixed(1)} MiB, with ${UNREAD_CONNECTIONS} ` +
          `connections not reading ${(after / MiB).toFixed(1)} MiB`,
      );
      const health = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      assert.match(await rawStatusLine(service.port, [health], { timeoutMs: 2_000 }), / 200 /);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});
