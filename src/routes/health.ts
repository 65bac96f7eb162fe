/** Liveness and readiness probes (docs/operations.md); public, never rate limited. */
import type { AppRoute } from "../app/context.ts";
import type { Lifecycle } from "../app/lifecycle.ts";
import { jsonReply } from "../http/responses.ts";

/** `GET /healthz` (the process runs) and `GET /readyz` (`Lifecycle.notReady`). */
export function healthRoutes(lifecycle: Pick<Lifecycle, "notReady">): AppRoute[] {
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
        const notReady = lifecycle.notReady();
        if (notReady !== undefined) throw notReady;
        return jsonReply(context.headers.reply, '{"status":"ready"}');
      },
    },
  ];
}
