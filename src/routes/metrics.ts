/** `GET /metrics` (METRICS=on): the Prometheus text format, behind an API key, never limited. */
import type { RequestContext } from "./context.ts";
import { EXPOSITION_CONTENT_TYPE, type Registry } from "../metrics/registry.ts";
import type { Reply } from "../http/responses.ts";
import type { Route } from "../http/router.ts";

/** The metrics route; `public: false` asks for a key although it lives outside BASE_PATH. */
export function metricsRoutes(registry: Registry): Route<RequestContext, Reply>[] {
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
