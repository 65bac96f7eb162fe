/**
 * `createApp(...)`: the one handler every runtime adapter serves. It assembles the routes, the
 * lifecycle and the metrics once; a request then walks app/steps.ts.
 */
import type { AppRoute } from "./app/context.ts";
import { Lifecycle } from "./app/lifecycle.ts";
import { type AppRouter, handleRequest, type Pipeline } from "./app/steps.ts";
import type { Config } from "./config/config.ts";
import type { KeyRing } from "./http/auth.ts";
import { corsPolicyFor } from "./http/cors.ts";
import { deprecationHeaders } from "./http/deprecation.ts";
import { RateLimiter } from "./http/rate_limit.ts";
import { type HeaderSet, replyHeaders } from "./http/responses.ts";
import { Router } from "./http/router.ts";
import type { Logger } from "./observe/log.ts";
import { ServiceMetrics } from "./observe/service_metrics.ts";
import { healthRoutes, metricsRoutes } from "./routes/health.ts";
import { openapiRoutes } from "./routes/openapi.ts";
import { petRoutes } from "./routes/pets.ts";
import type { AppRequest, BrotliEncoder, Respond } from "./runtime/contract.ts";
import { webResponse } from "./runtime/contract.ts";
import { ERROR_MESSAGES } from "./schemas/error.ts";
import type { PetStore } from "./store/store.ts";

/** The handler and the levers `commands/serve.ts` pulls at start and shutdown. */
export type App = ReturnType<typeof createApp>;

/** Everything the handler depends on; tests pass their own clock, store and log. */
export interface AppOptions {
  readonly config: Config;
  readonly keys: KeyRing;
  readonly log: Logger;
  /** Milliseconds since the epoch; injectable so a test can stand after the sunset. */
  readonly clock?: () => number;
  /** A store that is ready from the start (tests); otherwise call `app.ready(store)`. */
  readonly store?: PetStore;
  /** node:zlib's brotli unless the runtime adapter offers another. */
  readonly brotli?: BrotliEncoder;
  /** `LOAD_WAIT_MS` by default. */
  readonly loadWaitMs?: number;
}

export function createApp(options: AppOptions) {
  const { config, keys, log } = options;
  const { basePath } = config;
  const clock = options.clock ?? Date.now;
  const lifecycle = new Lifecycle({ store: options.store, loadWaitMs: options.loadWaitMs });
  const deprecation = deprecationHeaders(`${config.publicUrl ?? ""}${basePath}/pets`);
  const apiRoutes = [...petRoutes(options), ...openapiRoutes(config)];
  const rootRoutes = healthRoutes(lifecycle);
  const metrics = config.metrics
    ? new ServiceMetrics({
      rootPatterns: [...rootRoutes.map((route) => route.pattern), "/metrics"],
      apiPatterns: apiRoutes.map((route) => route.pattern),
      basePath,
    }, {
      ready: () => lifecycle.isReady(),
      inFlight: () => lifecycle.inFlight,
      logLinesDropped: () => log.droppedLines(),
    })
    : undefined;
  if (metrics !== undefined) {
    options.store?.registerMetrics(metrics.registry);
    rootRoutes.push(...metricsRoutes(metrics.registry));
  }
  const pipeline: Pipeline = {
    basePath,
    rootRouter: withFacts(rootRoutes, false, deprecation),
    apiRouter: withFacts(apiRoutes, true, deprecation),
    goneMessage: ERROR_MESSAGES.removed(deprecation.sunset, `${basePath}/pets`),
    keys,
    rateLimiter: config.rateLimit > 0
      ? new RateLimiter({ limit: config.rateLimit, clock })
      : undefined,
    cors: corsPolicyFor(config.corsOrigins),
    clock,
    lifecycle,
    metrics,
    log,
  };
  /** Answers `request` with what `respond` makes of the whole reply (`ServeOptions.handle`). */
  const handle = <R>(request: AppRequest, respond: Respond<R>) =>
    handleRequest(pipeline, request, respond);
  return {
    handle,
    fetch: (request: AppRequest) => handle(request, webResponse),
    /** `Lifecycle.ready`, `drain`, `endDelay` and `idle` (app/lifecycle.ts). */
    ready(store: PetStore) {
      lifecycle.ready(store);
      if (metrics !== undefined) store.registerMetrics(metrics.registry);
    },
    drain: (delayMs?: number) => lifecycle.drain(delayMs),
    endDrainDelay: () => lifecycle.endDelay(),
    idle: () => lifecycle.idle(),
    /** With `METRICS=on` (the store registers its own there). */
    metrics,
  };
}

/**
 * The router of `routes` with each path's facts made once: whether it asks for a key (under
 * BASE_PATH unless public; outside it only where `public: false`) and its constant headers.
 */
function withFacts(routes: AppRoute[], underBase: boolean, deprecation: HeaderSet): AppRouter {
  return new Router(routes.map(({ options = {}, ...route }) => {
    const keyed = underBase ? options.public !== true : options.public === false;
    const headers = replyHeaders({
      keyed,
      deprecation: options.deprecated ? deprecation : undefined,
    });
    return { ...route, options: { ...options, keyed, headers } };
  }));
}
