/**
 * `healthcheck`'s HTTPS GET, by node:https (`fetch` has no common way to relax certificate checks).
 * Unverified on purpose: it calls this machine and reads only the status. `ca` is still passed,
 * or Deno's node:https loads the system's store, which needs `--allow-sys=ca`.
 */
import { request } from "node:https";

export function healthzStatus(host: string, port: number, ca: string, ms: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = { host, port, path: "/healthz", rejectUnauthorized: false, ca, timeout: ms };
    const outgoing = request(target, (incoming) => {
      incoming.resume();
      resolve(incoming.statusCode ?? 0);
    });
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer in ${ms} ms`)));
    outgoing.on("error", reject);
    outgoing.end();
  });
}
