/**
 * A churn of compressible requests for the memory test:
 * a list page of 15 pets with names of 120 characters (about 2.7 KB, not full, so compressed on
 * every request whatever the cache), asked for in br, gzip and identity over a few keep-alive
 * connections.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { connect } from "node:net";
import type { ServiceProcess } from "./server_process.ts";
import { serviceApi } from "./service_api.ts";

/** Concurrent connections of a churn. */
export const CHURN_CONCURRENCY = 3;

/** 15 pets with names of 120 characters: the list page is about 2.7 KB, compressed per request. */
export async function addLongNamedPets(service: ServiceProcess, key: string): Promise<void> {
  const api = serviceApi(key);
  const words = "Rex Bella Luna Max Milo Daisy Whiskers Shadow Pepper Ginger Mochi Otis".split(" ");
  for (let id = 1; id <= 15; id++) {
    let name = "";
    for (let i = id; name.length < 120; i += 7) name += `${words[(i * 5) % words.length]} `;
    const body = JSON.stringify({ name: name.slice(0, 120), categoryId: id * 7919 });
    const response = await api(service, "/v1/pets", { method: "POST", body });
    assert.equal(response.status, 201, await response.text());
  }
}

/**
 * `counts` requests of `GET /v1/pets` per coding, interleaved, over `CHURN_CONCURRENCY` keep-alive
 * connections; each answer is checked for its status and coding. Raw sockets: a client that
 * decompressed would spend the CPU the two of them share.
 */
export async function encodingChurn(
  service: ServiceProcess,
  key: string,
  counts: Record<string, number>,
): Promise<void> {
  const queue: string[] = [];
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const left = { ...counts };
  while (queue.length < total) {
    for (const coding of Object.keys(left)) {
      if (left[coding]-- > 0) queue.push(coding);
    }
  }
  const connection = () =>
    new Promise<void>((resolve, reject) => {
      const socket = connect(service.port, "127.0.0.1");
      let data: Buffer = Buffer.alloc(0);
      let expected = "";
      const next = () => {
        const coding = queue.pop();
        if (coding === undefined) {
          socket.end();
          resolve();
          return;
        }
        expected = coding;
        const accept = coding === "identity" ? "" : `Accept-Encoding: ${coding}\r\n`;
        socket.write(
          `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n${accept}\r\n`,
        );
      };
      socket.on("data", (chunk: Buffer) => {
        data = data.byteLength === 0 ? chunk : Buffer.concat([data, chunk]);
        const end = data.indexOf("\r\n\r\n");
        if (end === -1) return;
        const head = data.subarray(0, end).toString("latin1");
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
        if (data.byteLength < end + 4 + length) return;
        data = data.subarray(end + 4 + length);
        const coding = /\r\ncontent-encoding: *(\S+)/i.exec(head)?.[1] ?? "identity";
        if (!head.startsWith("HTTP/1.1 200") || coding !== expected) {
          socket.destroy();
          reject(new Error(`asked for ${expected}, got: ${head.split("\r\n")[0]} in ${coding}`));
          return;
        }
        next();
      });
      socket.on("error", reject);
      socket.on("connect", next);
    });
  await Promise.all(Array.from({ length: CHURN_CONCURRENCY }, connection));
}
