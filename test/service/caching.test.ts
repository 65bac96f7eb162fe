/**
 * Caching and compression over real HTTP, on the runtime under test (TARGET_RUNTIME) and each
 * store: br and gzip bodies as they travel (read with node:http, which does not decompress),
 * decompressed and compared with the identity body; tags per coding, 304s, HEAD; the same tags
 * after a restart, with the cache off, and on a second instance over the same database.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { request as httpRequest } from "node:http";
import { before, describe, it } from "node:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { type Backend, backends } from "../support/backends.ts";
import {
  runService,
  type ServiceProcess,
  targetRuntime,
  temporaryDirectory,
} from "../support/server_process.ts";
import { REQUEST_TIMEOUT_MS, serviceApi } from "../support/service_api.ts";
import { useService, withService } from "../support/service_fixture.ts";

const KEY = "caching-suite-key";
const runtime = targetRuntime();
const api = serviceApi(KEY);

interface WireResponse {
  readonly status: number;
  readonly headers: Record<string, string | undefined>;
  /** The body exactly as it travelled. */
  readonly body: Buffer;
}

/** One request with node:http: the bytes as sent, no decompression, no added headers. */
function wire(
  service: ServiceProcess,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${service.url}${path}`, {
      method: options.method ?? "GET",
      headers: { authorization: `Bearer ${KEY}`, ...options.headers },
      timeout: REQUEST_TIMEOUT_MS,
    }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () => {
        const headers: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(incoming.headers)) {
          headers[name] = Array.isArray(value) ? value.join(", ") : value;
        }
        resolve({ status: incoming.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
      incoming.on("error", reject);
    });
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no response to ${path}`)));
    outgoing.on("error", reject);
    outgoing.end();
  });
}

function decode(response: WireResponse): string {
  const coding = response.headers["content-encoding"];
  const plain = coding === "br"
    ? brotliDecompressSync(response.body)
    : coding === "gzip"
    ? gunzipSync(response.body)
    : response.body;
  return plain.toString("utf8");
}

const PATHS = ["/v1/pets?limit=50", "/v1/pets?limit=100", "/v1/pets?status=sold", "/v1/pets/3"];
const CODINGS: [string | undefined, string | undefined][] = [
  [undefined, undefined],
  ["gzip", "gzip"],
  ["br", "br"],
  ["gzip, br", "br"],
];

/** Every path in every coding: its tag and decoded body. */
async function tagsOf(service: ServiceProcess): Promise<Record<string, string>> {
  const tags: Record<string, string> = {};
  for (const path of PATHS) {
    for (const [accept] of CODINGS) {
      const headers: Record<string, string> = accept === undefined
        ? {}
        : { "accept-encoding": accept };
      const response = await wire(service, path, { headers });
      tags[`${path} ${accept}`] = `${response.headers.etag} ${decode(response).length}`;
    }
  }
  return tags;
}

describe(`CACHE_BYTES on ${runtime}`, { timeout: 60_000 }, () => {
  it("a value that is not a whole number of bytes exits 2 with one line naming it", async () => {
    const dir = temporaryDirectory();
    try {
      for (const value of ["64MiB", "-1", "1.5", ""]) {
        const result = await runService([], {
          env: { API_KEYS: KEY, DATA_DIR: dir.path, CACHE_BYTES: value },
        });
        assert.equal(result.code, 2, `${value}: ${result.stderr}`);
        assert.match(result.stderr, /CACHE_BYTES/);
        assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
      }
    } finally {
      dir.remove();
    }
  });
});

for (const backend of backends) {
  describe(`caching over HTTP on ${runtime}, ${backend.name}`, {
    timeout: 120_000,
    skip: backend.skip,
  }, () => {
    cachingSuite(backend);
  });
}

function cachingSuite(backend: Backend) {
  const service = useService({ key: KEY, backend });

  before(async () => {
    for (let i = 1; i <= 130; i++) {
      const status = ["available", "pending", "sold", undefined][i % 4];
      const body = JSON.stringify({
        name: `Caching pet ${i} with a longer name`,
        categoryId: i,
        status,
      });
      const response = await api(service, "/v1/pets", { method: "POST", body });
      assert.equal(response.status, 201, await response.text());
    }
  });

  it("br and gzip bodies decompress to the identity bytes, each coding with its own tag", async () => {
    for (const path of PATHS) {
      const identity = await wire(service, path);
      assert.equal(identity.status, 200, path);
      assert.equal(identity.headers["content-encoding"], undefined);
      const tags = new Set<string | undefined>();
      for (const [accept, coding] of CODINGS) {
        const headers: Record<string, string> = accept === undefined
          ? {}
          : { "accept-encoding": accept };
        const response = await wire(service, path, { headers });
        const compressible = identity.body.byteLength > 1024;
        assert.equal(
          response.headers["content-encoding"],
          compressible ? coding : undefined,
          `${path} ${accept}`,
        );
        assert.equal(response.headers.vary, "Accept-Encoding");
        assert.equal(response.headers["cache-control"], "private, no-cache");
        assert.equal(response.headers["content-length"], String(response.body.byteLength));
        assert.equal(decode(response), identity.body.toString("utf8"), `${path} ${accept}`);
        if (compressible && coding !== undefined) {
          assert.ok(response.body.byteLength < identity.body.byteLength / 2, `${path} ${coding}`);
        }
        tags.add(response.headers.etag);
        const head = await wire(service, path, { method: "HEAD", headers });
        assert.equal(head.headers["content-length"], String(response.body.byteLength), path);
        assert.equal(head.headers.etag, response.headers.etag);
        assert.equal(head.body.byteLength, 0);
        const revalidated = await wire(service, path, {
          headers: { ...headers, "if-none-match": `"x", W/${response.headers.etag}` },
        });
        assert.equal(revalidated.status, 304, `${path} ${accept}`);
        assert.equal(revalidated.body.byteLength, 0);
        assert.equal(revalidated.headers.etag, response.headers.etag);
        assert.equal(revalidated.headers.vary, "Accept-Encoding");
      }
      // identity, gzip and br: three tags for a compressible body, one for a small one.
      assert.equal(tags.size, identity.body.byteLength > 1024 ? 3 : 1, path);
    }
  });

  it("gives the same tags after a restart, and with the cache off", async () => {
    const before = await tagsOf(service);
    assert.equal(await service.restart({ CACHE_BYTES: "0" }), 0);
    assert.deepEqual(await tagsOf(service), before);
    assert.equal(await service.restart(), 0);
    assert.deepEqual(await tagsOf(service), before);
  });

  // A JSON-lines data directory has one owner at a time: only a database has two instances.
  if (!backend.name.startsWith("PostgreSQL")) return;
  it("two instances over the same database give the same tags", async () => {
    await withService({ key: KEY, env: service.env }, async (other) => {
      assert.deepEqual(await tagsOf(other), await tagsOf(service));
    });
  });
}
