/** Liveness and readiness probes (docs/operations.md); public, never rate limited. */
import type { AppRoute, Readiness } from "./context.ts";
import { HttpError } from "../http/errors.ts";
import { jsonReply } from "../http/responses.ts";

/**
 * `GET /healthz` (the process runs) and `GET /readyz` (the store is loaded, can reach its data —
 * a database store may lose its connection — and the service is not draining).
 */
export function healthRoutes(deps: {
  readiness: () => Readiness;
  storeAvailable: () => boolean;
}): AppRoute[] {
  return [
    {
      method: "GET",
      pattern: "/healthz",
      handler: (context) => jsonReply(context.headers.reply, '{"status":"ok"}'),
    },
    {
      method: "GET",
      pattern: "/readyz",
      handler: (context) => {
        const readiness = deps.readiness();
        const available = deps.storeAvailable();
        if (readiness === "ready" && available) {
          return jsonReply(context.headers.reply, '{"status":"ready"}');
        }
        const message = readiness === "loading"
          ? "The store is still loading"
          : readiness === "draining"
          ? "The service is shutting down"
          : "The store cannot serve: its database is unreachable, or its data file failed (see the log)";
        throw new HttpError(503, "unavailable", message, { headers: { "retry-after": "1" } });
      },
    },
  ];
}
