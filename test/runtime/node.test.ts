/**
 * The Node adapter's own duties, under the app: a handler that throws or rejects is a bare 500,
 * never a crash; a reply, made synchronously or not, goes out whole with its Content-Length; the request gives the app the
 * target, headers and body. On Node the HTTP process suites (test/service/) cover the rest; here
 * the adapter runs on the node:http of the runtime running the test: Deno's, whose server is
 * Node's own. Not under Bun: its node:http server is another class, whose shutdown cannot borrow
 * net.Server's close() (the drain's "stop accepting only"), and the adapter never runs there.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Reply } from "../../src/runtime/contract.ts";
import { nodeRuntime } from "../../src/runtime/node.ts";
import type { ServeOptions } from "../../src/runtime/contract.ts";

async function withServer(
  handle: ServeOptions["handle"],
  use: (base: string) => Promise<void>,
): Promise<void> {
  const server = await nodeRuntime.serve({ handle, port: 0, host: "127.0.0.1" });
  try {
    await use(`http://127.0.0.1:${server.port}`);
  } finally {
    await server.shutdown(0);
  }
}

const REPLIES: Record<string, () => Reply> = {
  "/text": () => ({ status: 200, headers: { "content-type": "text/plain" }, body: "héllo" }),
  "/bytes": () => ({ status: 201, headers: {}, body: new Uint8Array([1, 2, 3]) }),
  "/empty": () => ({ status: 200, headers: {}, body: null }),
  "/no-content": () => ({ status: 204, headers: {}, body: null }),
};

describe("nodeRuntime.serve()", { skip: "Bun" in globalThis }, () => {
  it("answers 500 with no body when the handler throws or rejects, and serves on", async () => {
    await withServer((request, respond) => {
      if (request.url === "/throw") throw new Error("a synchronous throw");
      if (request.url === "/reject") return Promise.reject(new Error("a rejection"));
      return Promise.resolve(respond(REPLIES["/text"]()));
    }, async (base) => {
      for (const path of ["/throw", "/reject"]) {
        const response = await fetch(base + path);
        assert.equal(response.status, 500, path);
        assert.equal(await response.text(), "", path);
      }
      assert.equal((await fetch(base + "/text")).status, 200);
    });
  });

  it("writes a reply whole with its Content-Length: 0 with no body, none for a 204", async () => {
    await withServer(
      // Synchronously, as the app answers a read from memory.
      (request, respond) => respond(REPLIES[request.url]()),
      async (base) => {
        const expected: Record<string, [number, string | null, number[]]> = {
          "/text": [200, "6", [...new TextEncoder().encode("héllo")]],
          "/bytes": [201, "3", [1, 2, 3]],
          "/empty": [200, "0", []],
          "/no-content": [204, null, []],
        };
        for (const [path, [status, length, bytes]] of Object.entries(expected)) {
          const response = await fetch(base + path);
          assert.equal(response.status, status, path);
          assert.equal(response.headers.get("content-length"), length, path);
          assert.equal(response.headers.get("transfer-encoding"), null, path);
          // A request with no body was read whole: the connection stays open for the next one.
          assert.notEqual(response.headers.get("connection"), "close", path);
          assert.deepEqual([...new Uint8Array(await response.arrayBuffer())], bytes, path);
        }
      },
    );
  });

  it("gives the app the target as its URL, the headers, and the body whole or as a stream", async () => {
    await withServer(async (request, respond) => {
      const bytes = request.url.endsWith("stream")
        ? await new Response(request.body).arrayBuffer()
        : await request.arrayBuffer();
      const body = JSON.stringify({
        method: request.method,
        url: request.url,
        header: request.headers.get("X-Probe"),
        has: request.headers.has("x-probe"),
        length: bytes.byteLength,
      });
      return respond({ status: 200, headers: {}, body });
    }, async (base) => {
      const whole = await fetch(base + "/v1/pets?limit=2", {
        method: "POST",
        headers: { "x-probe": "yes" },
        body: "12345",
      });
      assert.deepEqual(await whole.json(), {
        method: "POST",
        url: "/v1/pets?limit=2",
        header: "yes",
        has: true,
        length: 5,
      });
      // Undici needs `duplex` for a streamed body; lib.dom's RequestInit does not know it.
      const streaming = { method: "PUT", body: new Blob(["abc"]).stream(), duplex: "half" };
      const streamed = await fetch(base + "/stream", streaming);
      assert.deepEqual(await streamed.json(), {
        method: "PUT",
        url: "/stream",
        header: null,
        has: false,
        length: 3,
      });
    });
  });
});
