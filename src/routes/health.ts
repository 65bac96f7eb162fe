/** Outside BASE_PATH, never rate limited: the probes (docs/operations.md) and the metrics. */
import type { AppRoute } from "../app/context.ts";
import type { Lifecycle } from "../app/lifecycle.ts";
import { jsonReply } from "../http/responses.ts";
import { EXPOSITION_CONTENT_TYPE, type Registry } from "../observe/metrics_registry.ts";

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

/** `GET /metrics` (METRICS=on): the Prometheus text format, behind an API key. */
export function metricsRoutes(registry: Registry): AppRoute[] {
  return [{
    method: "GET",
    pattern: "/metrics",
    options: { public: false },
    handler: async (context) => ({
      status: 200,
      body: await registry.render(),
      headers: { ...context.headers.reply, "content-type": EXPOSITION_CONTENT_TYPE },
    }),
  }];
}
