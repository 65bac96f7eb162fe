/**
 * The Node adapter: node:http bridged to the fetch handler. The bridge builds only what the
 * handler reads (see `NodeRequest`), catches every throw and rejection (a handler error must
 * never escape and crash the process), and treats a closed socket as a client abort.
 *
 * With TLS the same bridge runs on a node:https server (loaded only then), whose
 * `setSecureContext` swaps the certificate for new connections while open ones go on.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import process from "node:process";
import { NodeRequest } from "./node/node_request.ts";
import { NodeResponse } from "./node/node_response.ts";
import { discardUnreadBody } from "./node/unread_body.ts";
import { writeResponse } from "./node/write_response.ts";
import type { ResponseConstructor } from "../http/responses.ts";
import type { RunningServer, RuntimeAdapter, ServeOptions, TlsMaterial } from "./server.ts";

/** How often shutdown closes the connections that became idle since (their answer was sent). */
const IDLE_SWEEP_MS = 100;

/** Slow clients (slowloris): limits on how long headers and a whole request may take. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** How often the timeouts above are checked (Node's default, 30 s, would let a slow head last 40 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
/** Request line plus headers, in bytes (Node's default, stated): over it Node answers 431. */
const MAX_HEADER_BYTES = 16 * 1024;

async function serve(options: ServeOptions): Promise<RunningServer> {
  const httpOptions = {
    headersTimeout: HEADERS_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    maxHeaderSize: MAX_HEADER_BYTES,
  };
  const listener = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    handle(options.fetch, incoming, outgoing).catch(() => outgoing.destroy());
  };
  const tls = options.tls;
  const secure = tls === undefined ? undefined : (await import("node:https")).createServer({
    ...httpOptions,
    cert: tls.cert,
    key: tls.key,
    // The TLS handshake comes before the head, so headersTimeout does not bound it (Node's own
    // default is 120 s): a client that stalls mid-handshake gets as long as a slow head.
    handshakeTimeout: HEADERS_TIMEOUT_MS,
  }, listener);
  const server = secure ?? createServer(httpOptions, listener);
  // Node counts a connection that has sent nothing yet as busy (it awaits a head), not idle:
  // clients open such spare connections (Deno's fetch does), and they would hold shutdown.
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
      const { port } = server.address() as AddressInfo;
      resolve({
        port,
        ...(secure === undefined ? {} : {
          replaceTls: (pair: TlsMaterial) =>
            secure.setSecureContext({ cert: pair.cert, key: pair.key }),
        }),
        shutdown: (graceMs: number) =>
          new Promise<void>((done) => {
            // close() stops accepting and waits for open connections; idle keep-alive ones
            // would hold it open until their timeout, so close those now and as they turn idle,
            // and at the deadline every connection (a trickled head never reaches the handler).
            const sweep = setInterval(closeIdle, IDLE_SWEEP_MS);
            const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
            server.close(() => {
              clearInterval(sweep);
              clearTimeout(deadline);
              done();
            });
            closeIdle();
          }),
      });
    });
  });
}

async function handle(
  fetch: ServeOptions["fetch"],
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): Promise<void> {
  // The abort signal is created only if the handler reads it (see `NodeRequest.signal`).
  const request = new NodeRequest(incoming, outgoing);
  let response: Response | NodeResponse;
  try {
    response = await fetch(request as unknown as Request);
  } catch {
    response = new Response(null, { status: 500 });
  }
  if (incoming.complete) return writeResponse(response, outgoing);
  // The handler answered without reading the whole body (401, 413, ...), so this connection
  // cannot carry another request: with keep-alive off, node sends `Connection: close` and closes
  // the socket once the response has ended. The answer goes out now, but its end waits until the
  // rest of the body has been read and dropped (within bounds): closing with data still arriving
  // would reset the connection, and the client could lose the answer (see ./node/unread_body.ts).
  outgoing.shouldKeepAlive = false;
  await writeResponse(response, outgoing, { endAfter: discardUnreadBody(incoming) });
}

export const nodeRuntime: RuntimeAdapter = {
  name: "node",
  version: process.versions.node,
  serve,
  // The app answers with NodeResponse, which `writeResponse` sends in one write.
  Response: NodeResponse as unknown as ResponseConstructor,
  onSignal(signal, handler) {
    process.on(signal, handler);
  },
};
