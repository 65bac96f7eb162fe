/**
 * One HTTPS GET for the `healthcheck` command, by node:https (Deno, Bun and Node all have it; the
 * global `fetch` has no common way to relax certificate checks: Deno's needs a command-line flag).
 *
 * The certificate is not verified, on purpose. The probe calls an address of this machine (the
 * one the service binds), sends nothing secret (no key, no body) and reads only the status, so
 * verifying protects nothing the plain-HTTP probe protects; and it could fail for reasons that
 * say nothing about health: a certificate issued for pets.example.com does not name 127.0.0.1, a
 * chain may end at a root the probe's store lacks, and a renewed file not yet loaded (Deno, Bun
 * until restart) differs from the one served.
 *
 * `ca` is still passed (the served certificate): without it Deno's node:https loads the system's
 * certificate store, which needs `--allow-sys=ca`, a permission `deno task start` does not grant.
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
