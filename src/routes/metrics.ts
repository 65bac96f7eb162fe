/** `GET /metrics` (METRICS=on): the Prometheus text format, behind an API key, never limited. */
import type { RequestContext } from "./context.ts";
import { EXPOSITION_CONTENT_TYPE } from "../metrics/registry.ts";
import type { ScrapeSources, ServiceMetrics } from "../metrics/service_metrics.ts";
import type { Reply } from "../http/responses.ts";
import type { Route } from "../http/router.ts";

/** The metrics route; `public: false` asks for a key although it lives outside BASE_PATH. */
export function metricsRoutes(
  metrics: ServiceMetrics,
  sources: () => ScrapeSources,
): Route<RequestContext, Reply>[] {
  return [{
    method: "GET",
    pattern: "/metrics",
    options: { public: false },
    handler: async (context) => ({
      status: 200,
      body: await metrics.render(sources()),
      headers: { ...context.headers.reply, "content-type": EXPOSITION_CONTENT_TYPE },
    }),
  }];
}
