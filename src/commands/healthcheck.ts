/**
 * `healthcheck`: exit 0 when `GET /healthz` on PORT (and HOST, when it names one address)
 * answers 200 — for images with no curl. With TLS_CERT_FILE and TLS_KEY_FILE set it speaks
 * HTTPS, without verifying the certificate (../runtime/https_probe.ts says why).
 */
import process from "node:process";
import { commandConfig } from "./command_config.ts";

/** HOST values that mean "every interface": the service is reached on loopback there. */
const WILDCARD_HOSTS: ReadonlySet<string> = new Set(["0.0.0.0", "::", ""]);

/**
 * The `host:port` the probe calls: HOST itself when it names one address (a service bound to
 * 10.0.0.5 does not answer on 127.0.0.1), an IPv6 literal in brackets; 127.0.0.1 for a wildcard.
 */
export function probeAuthority(host: string, port: number): string {
  const address = probeHost(host);
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}

/** The address the probe calls for HOST: HOST itself, or 127.0.0.1 for a wildcard. */
function probeHost(host: string): string {
  return WILDCARD_HOSTS.has(host) ? "127.0.0.1" : host;
}

const PROBE_TIMEOUT_MS = 3000;

async function httpStatus(authority: string): Promise<number> {
  const response = await fetch(`http://${authority}/healthz`, {
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
  });
  await response.body?.cancel();
  return response.status;
}

/** Probes the local service; 0 healthy, 1 not. */
export async function runHealthcheck(): Promise<number> {
  const config = commandConfig("check health");
  if (config === undefined) return 2;
  const authority = probeAuthority(config.host, config.port);
  try {
    const status = config.tls === undefined
      ? await httpStatus(authority)
      : await (await import("../runtime/https_probe.ts")).httpsStatus(
        probeHost(config.host),
        config.port,
        { path: "/healthz", timeoutMs: PROBE_TIMEOUT_MS, ca: config.tls.cert },
      );
    if (status === 200) return 0;
    process.stderr.write(`Unhealthy: GET /healthz answered ${status}\n`);
  } catch (error) {
    process.stderr.write(
      `Unhealthy: GET /healthz on ${authority} failed: ${(error as Error).message}\n`,
    );
  }
  return 1;
}
