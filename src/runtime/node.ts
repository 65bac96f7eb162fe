/**
 * The Node adapter: node:http or node:https bridged to the app's handler, the reply written with
 * one `writeHead` and one `end`; a handler error never crashes the process. node:http's own limits
 * (docs/operations.md): over TLS it drops a connection whose pipelined requests span several TLS
 * records (HPE_PAUSED), and stops a pipelining client that never reads only after its whole read.
 */
import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Server as NetServer, type Socket } from "node:net";
import process from "node:process";
import type { Reply, Respond, RunningServer, RuntimeAdapter, ServeOptions } from "./contract.ts";
import { NodeRequest } from "./node/node_request.ts";
import { awaitSmallBody, discardUnreadBody } from "./node/unread_body.ts";
import { IDLE_QUIET_MS, processEvents } from "./process.ts";

/** How often shutdown closes the connections that became idle since. */
const IDLE_SWEEP_MS = 100;

/** node:http's limits on slow clients (slowloris) and on the size of a head. */
const HTTP_OPTIONS = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  // How often those are checked: Node's default, 30 s, would let a slow head last 40 s.
  connectionsCheckingInterval: 1_000,
  // Request line plus headers, in bytes: over it Node answers 431.
  maxHeaderSize: 16 * 1024,
};

async function serve(options: ServeOptions): Promise<RunningServer> {
  // Checked when the answer is written, so a request in flight at the signal closes too.
  let draining = false;
  const reply = (outcome: Reply, outgoing: ServerResponse) => {
    if (draining) outgoing.shouldKeepAlive = false;
    send(outcome, outgoing);
  };
  const listener = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    let outcome: Reply | Promise<Reply>;
    try {
      outcome = options.handle(new NodeRequest(incoming), asIs);
    } catch {
      outcome = serverError();
    }
    // A reply made synchronously is written at once, with no promise in between.
    if (!(outcome instanceof Promise)) return reply(outcome, outgoing);
    outcome.then((outcome) => reply(outcome, outgoing), () => reply(serverError(), outgoing));
  };
  const tls = options.tls;
  const secure = tls && (await import("node:https")).createServer({
    ...HTTP_OPTIONS,
    cert: tls.cert,
    key: tls.key,
    // headersTimeout does not bound the handshake (Node's default is 120 s).
    handshakeTimeout: HTTP_OPTIONS.headersTimeout,
  }, listener);
  const server = secure || createServer(HTTP_OPTIONS, listener);
  // Node counts a connection that has sent nothing yet as busy, not idle: clients open such
  // spare connections (Deno's fetch does), and they would hold shutdown.
  const silent = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    silent.add(socket);
    socket.once("close", () => silent.delete(socket));
  });
  const closeIdle = () => {
    server.closeIdleConnections();
    for (const socket of silent) {
      if (socket.bytesRead === 0) socket.destroy();
      else silent.delete(socket);
    }
  };
  return await new Promise<RunningServer>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      const address = server.address();
      resolve({
        port: typeof address === "object" && address !== null ? address.port : options.port,
        ...(secure && { replaceTls: (pair) => secure.setSecureContext(pair) }),
        shutdown: (graceMs: number) =>
          new Promise<void>((done) => {
            draining = true;
            // Not node:http's close(), which closes every idle connection at once (a pooled one
            // is idle between two requests): net's only stops accepting. Idle connections close
            // after the quiet period, later ones as they turn idle, and all at the deadline.
            let sweep: ReturnType<typeof setInterval> | undefined;
            const quiet = setTimeout(() => {
              closeIdle();
              sweep = setInterval(closeIdle, IDLE_SWEEP_MS);
            }, Math.min(IDLE_QUIET_MS, graceMs));
            const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
            NetServer.prototype.close.call(server, () => {
              clearTimeout(quiet);
              clearInterval(sweep);
              clearTimeout(deadline);
              done();
            });
          }),
      });
    });
  });
}

const asIs: Respond<Reply> = (reply) => reply;

const serverError = (): Reply => ({ status: 500, headers: {}, body: null });

/** Writes `reply` on `outgoing`; never throws (a failed write drops the connection). */
function send(reply: Reply, outgoing: ServerResponse): void {
  try {
    const { status, headers, body } = reply;
    // A 204 or 304 has no content and says no length (RFC 9110 §8.6).
    const hasContent = status >= 200 && status !== 204 && status !== 304;
    // The whole body's length goes in the head (0 for none): without it node frames a response
    // left open (below) as chunked, and the client would wait for the last chunk.
    if (headers["content-length"] === undefined && (body !== null || hasContent)) {
      const length = typeof body === "string" ? Buffer.byteLength(body) : body?.byteLength ?? 0;
      headers["content-length"] = String(length);
    }
    const incoming = outgoing.req;
    const { "content-length": sentLength, "transfer-encoding": chunked } = incoming.headers;
    // A synchronous reply is written before the parser marks even a body-less request complete;
    // one without Content-Length (or 0) and Transfer-Encoding has nothing left (RFC 9112 §6.3).
    if (incoming.complete || (chunked === undefined && (sentLength ?? "0") === "0")) {
      return void outgoing.writeHead(status, headers).end(body ?? undefined);
    }
    // Answered without reading the whole body (401, 413, 415): a small one is dropped when it
    // arrives, which keeps the connection for the next request.
    awaitSmallBody(incoming).then((arrived) => {
      if (arrived) return void outgoing.writeHead(status, headers).end(body ?? undefined);
      // Answered now, the connection closed once the rest of the body has been dropped.
      outgoing.shouldKeepAlive = false;
      outgoing.writeHead(status, headers);
      if (body === null) outgoing.flushHeaders();
      else outgoing.write(body);
      return discardUnreadBody(incoming).then(() => outgoing.end());
    }).catch(() => outgoing.destroy());
  } catch {
    outgoing.destroy();
  }
}

export const nodeRuntime: RuntimeAdapter = {
  name: "node",
  version: process.versions.node,
  serve,
  ...processEvents,
};
