/**
 * One HTTPS GET for the `healthcheck` command, by node:https (the global `fetch` has no common way
 * to relax certificate checks). The certificate is not verified, on purpose: the probe calls this
 * machine, sends nothing secret and reads only the status, and a check could fail for reasons
 * that say nothing about health (a name that is not 127.0.0.1, a renewed file not yet loaded).
 * `ca` is still passed (the served certificate): without it Deno's node:https loads the system's
 * store, which needs `--allow-sys=ca`, a permission `deno task start` does not grant.
 */
import { request } from "node:https";

/** GETs `path` on `host:port` over TLS; resolves with the status, rejects on failure or timeout. */
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
