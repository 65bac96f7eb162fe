/**
 * A TCP proxy on loopback whose link can be cut and restored: the tests put it between the
 * service and PostgreSQL to take the database away from one instance without stopping it.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  readonly port: number;
  /** Drops every open connection and refuses new ones (the database is gone). */
  cut(): Promise<void>;
  /** Accepts connections again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy to `targetPort` on 127.0.0.1; `up: false` starts it cut. */
export async function startTcpProxy(
  targetPort: number,
  options: { up?: boolean } = {},
): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((client) => {
        const upstream = connect(targetPort, "127.0.0.1");
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on("close", () => sockets.delete(socket));
          socket.on("error", () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream);
        upstream.pipe(client);
      });
      next.once("error", reject);
      next.listen(port, "127.0.0.1", () => {
        port = (next.address() as { port: number }).port;
        server = next;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      if (server === undefined) return resolve();
      const closing = server;
      server = undefined;
      closing.close(() => resolve());
    });
  await listen();
  if (options.up === false) await cut();
  return {
    get port() {
      return port;
    },
    cut,
    restore: listen,
    close: cut,
  };
}
