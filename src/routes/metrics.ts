/** `GET /metrics` (METRICS=on): the Prometheus text format, behind an API key, never limited. */
import type { AppRoute } from "../app/context.ts";
import { EXPOSITION_CONTENT_TYPE, type Registry } from "../observe/metrics_registry.ts";

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
