/**
 * The three servers `node_bridge.ts` compares, each on node:http:
 *
 * - `ceiling`: a bare handler answering a fixed JSON body as long as a 20-pet page; no app, no
 *   bridge. Nothing built on node:http can go faster.
 * - `ours`: the app served by `nodeRuntime.serve` (the adapter under test).
 * - `naive`: the same app behind the textbook bridge: every header copied into a `Headers`, the
 *   request body buffered, a full `Request`, the response body read with `arrayBuffer()`.
 *
 * The app is built as `test/support/app.ts` builds it: a memory store holding `PET_COUNT` pets
 * and one key. Log lines are formatted as in production but dropped, so no server pays for
 * stdout and the comparison measures the bridge, not the terminal.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { keyDigest, KeyRing } from "../../src/http/auth.ts";
import { webResponse } from "../../src/http/responses.ts";
import { createJsonLogger } from "../../src/log.ts";
import { nodeRuntime } from "../../src/runtime/node.ts";
import { MemoryStore } from "../../test/support/memory_store.ts";

/** Which server to start. */
export type ServerKind = "ceiling" | "ours" | "naive";

export const SERVER_KINDS: readonly ServerKind[] = ["ceiling", "ours", "naive"];

/** The API key every benchmark request sends. */
export const BENCH_KEY = "bench-key-1";

/** The measured list request. */
export const LIST_PATH = "/v1/pets?limit=20";

const PET_COUNT = 100;
const STATUSES = ["available", "pending", "sold"] as const;

/** A listening server and how to stop it. */
export interface BenchServer {
  readonly port: number;
  close(): Promise<void>;
}

/** The app with a memory store preloaded with `PET_COUNT` pets. */
export async function benchApp(): Promise<App> {
  const config = loadConfig({ API_KEYS: BENCH_KEY });
  const store = new MemoryStore();
  for (let id = 1; id <= PET_COUNT; id++) {
    await store.create({
      name: `Pet number ${id}`,
      categoryId: BigInt(1000 + id),
      status: STATUSES[id % 3],
    });
  }
  const log = createJsonLogger({ write: () => Promise.resolve() });
  const keys = new KeyRing([keyDigest(BENCH_KEY)]);
  return createApp({ config, keys, log, store });
}

/** Starts the server of `kind` on `host`, on a free port. */
export async function startServer(
  kind: ServerKind,
  options: {
    host: string;
    wrapHandle?: (handle: App["handle"]) => App["handle"];
  },
): Promise<BenchServer> {
  const app = await benchApp();
  const handle = options.wrapHandle ? options.wrapHandle(app.handle) : app.handle;
  switch (kind) {
    case "ours": {
      const server = await nodeRuntime.serve({
        handle,
        port: 0,
        host: options.host,
      });
      return { port: server.port, close: () => server.shutdown(10_000) };
    }
    case "naive":
      return await listen(
        naiveBridge((request) => handle(request, webResponse)),
        options.host,
      );
    case "ceiling": {
      // The same bytes a 20-pet page has, so the ceiling writes as much as the others do.
      const page = await app.fetch(
        new Request(`http://localhost${LIST_PATH}`, {
          headers: { authorization: `Bearer ${BENCH_KEY}` },
        }),
      );
      const body = Buffer.from(await page.arrayBuffer());
      return await listen((_incoming, outgoing) => {
        outgoing.writeHead(200, {
          "content-type": "application/json",
          "content-length": body.byteLength,
        });
        outgoing.end(body);
      }, options.host);
    }
  }
}

type Listener = (incoming: IncomingMessage, outgoing: ServerResponse) => void;

/** The conversion most bridges start with: copy everything, buffer both bodies. */
function naiveBridge(fetch: App["fetch"]): Listener {
  return async (incoming, outgoing) => {
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (value === undefined) continue;
        if (Array.isArray(value)) {
          for (const item of value) headers.append(name, item);
        } else headers.set(name, value);
      }
      const method = incoming.method ?? "GET";
      const chunks: Buffer[] = [];
      if (method !== "GET" && method !== "HEAD") {
        for await (const chunk of incoming) chunks.push(chunk);
      }
      const request = new Request(
        `http://${incoming.headers.host ?? "localhost"}${incoming.url}`,
        {
          method,
          headers,
          body: chunks.length === 0 ? null : Buffer.concat(chunks),
        },
      );
      let response: Response;
      try {
        response = await fetch(request);
      } catch {
        response = new Response(null, { status: 500 });
      }
      const body = Buffer.from(await response.arrayBuffer());
      const outHeaders: Record<string, string> = {};
      response.headers.forEach((value, name) => (outHeaders[name] = value));
      outgoing.writeHead(response.status, outHeaders);
      outgoing.end(body);
    } catch {
      outgoing.destroy();
    }
  };
}

function listen(listener: Listener, host: string): Promise<BenchServer> {
  const server = createServer({ keepAliveTimeout: 5_000 }, listener);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
          }),
      });
    });
  });
}
