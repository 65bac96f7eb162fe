/**
 * `healthcheck`'s HTTPS GET, by node:https (`fetch` has no common way to relax certificate checks).
 * Unverified on purpose: it calls this machine and reads only the status. `ca` is still passed,
 * or Deno's node:https loads the system's store, which needs `--allow-sys=ca`.
 */
import { request } from "node:https";

export function httpsStatus(
  host: string,
  port: number,
  { path, timeoutMs, ca }: { path: string; timeoutMs: number; ca: string },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = { host, port, path, method: "GET", rejectUnauthorized: false, ca };
    const outgoing = request({ ...target, timeout: timeoutMs }, (incoming) => {
      incoming.resume();
      resolve(incoming.statusCode ?? 0);
    });
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    outgoing.on("error", reject);
    outgoing.end();
  });
}
