/** `healthcheck`: exit 0 when `GET /healthz` on HOST and PORT answers 200 (images with no curl). */
import process from "node:process";
import { loadConfig } from "../config/config.ts";
import { authority, fail } from "./output.ts";

const TIMEOUT_MS = 3000;

/** HOST when it names one address (a service bound to 10.0.0.5 is deaf on 127.0.0.1), or loopback. */
function probeHost(host: string): string {
  return host === "0.0.0.0" || host === "::" || host === "" ? "127.0.0.1" : host;
}

/** The `host:port` the probe calls for HOST and PORT. */
export function probeAuthority(host: string, port: number): string {
  return authority(probeHost(host), port);
}

export async function runHealthcheck(): Promise<number> {
  const { host, port, tls } = loadConfig(process.env);
  const address = probeAuthority(host, port);
  let status: number;
  try {
    if (tls === undefined) {
      const signal = AbortSignal.timeout(TIMEOUT_MS);
      const response = await fetch(`http://${address}/healthz`, { signal });
      await response.body?.cancel();
      status = response.status;
    } else {
      const { healthzStatus } = await import("./https_probe.ts");
      status = await healthzStatus(probeHost(host), port, tls.cert, TIMEOUT_MS);
    }
  } catch (error) {
    return fail(`Unhealthy: GET /healthz on ${address} failed: ${(error as Error).message}`);
  }
  return status === 200 ? 0 : fail(`Unhealthy: GET /healthz answered ${status}`);
}
