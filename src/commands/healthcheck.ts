/** `healthcheck`: exit 0 when `GET /healthz` on PORT answers 200 — for images with no curl. */
import process from "node:process";
import { commandConfig } from "./command_config.ts";

/** Probes the local service; 0 healthy, 1 not. */
export async function runHealthcheck(): Promise<number> {
  const port = commandConfig("check health")?.port;
  if (port === undefined) return 2;
  try {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, {
      signal: AbortSignal.timeout(3000),
    });
    await response.body?.cancel();
    if (response.status === 200) return 0;
    process.stderr.write(`Unhealthy: GET /healthz answered ${response.status}\n`);
  } catch (error) {
    process.stderr.write(
      `Unhealthy: GET /healthz on port ${port} failed: ${(error as Error).message}\n`,
    );
  }
  return 1;
}
