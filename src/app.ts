/**
 * The application: `createApp(...)` returns one fetch-style handler,
 * `(request: Request) => Promise<Response>`, that every runtime adapter serves unchanged.
 *
 * A request walks one line: split the URL → match the path → key check (docs/api.md: the key is
 * checked first, whatever else is wrong) → method → route handler → store; the answer comes back
 * as a `Reply` and becomes, with the common headers, the request's one Response here. Errors
 * are values (`HttpError`) turned into the Error body in one place; anything else is logged and
 * answered with a bare 500.
 */
import type { Config } from "./config/config.ts";
import { authenticate, type KeyRing } from "./http/auth.ts";
import { corsPolicyFor } from "./http/cors.ts";
import { deprecationHeaders, isPastSunset } from "./http/deprecation.ts";
import { errorReply, HttpError } from "./http/errors.ts";
import { enforceRateLimit, RateLimiter, refundRateLimit } from "./http/rate_limit.ts";
import { requestIdFor } from "./http/request_id.ts";
import { traceIdOf } from "./http/trace_context.ts";
import {
  AUTHENTICATED_CACHE_CONTROL,
  plainHeaderTarget,
  type Reply,
  type ResponseConstructor,
} from "./http/responses.ts";
import { type PathMatch, Router } from "./http/router.ts";
import { checkUrlLength } from "./http/url_limit.ts";
import type { Logger } from "./log.ts";
import { ServiceMetrics } from "./metrics/service_metrics.ts";
import { healthRoutes } from "./routes/health.ts";
import { docsRoutes } from "./routes/docs.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { openapiRoutes } from "./routes/openapi.ts";
import { petRoutes } from "./routes/pets.ts";
import { type PetStore, StoreUnavailableError } from "./store/store.ts";

/** What a route handler gets: the request and everything already worked out about it. */
export interface RequestContext {
  readonly request: Request;
  readonly method: string;
  readonly path: string;
  /** The raw query string without `?` (may be empty). */
  readonly query: string;
  readonly params: Record<string, string>;
  readonly requestId: string;
  /** Fingerprint of the API key that authenticated the request (empty on public paths). */
  readonly keyScope: string;
  /** The ready store; throws 503 while the store is loading or the service is shutting down. */
  readonly store: () => PetStore;
}

/** The service's lifecycle as `/readyz` reports it. */
export type Readiness = "loading" | "ready" | "draining";

/** The handler and the levers `main.ts` pulls at start and shutdown. */
export interface App {
  readonly fetch: (request: Request) => Promise<Response>;
  /** The store finished loading: API requests are served from now on. */
  ready(store: PetStore): void;
  /** Shutting down: readiness goes 503 and requests that arrive from now on get 503. */
  drain(): void;
  /** Resolves once no request is in flight (at once when none is). */
  idle(): Promise<void>;
  readonly readiness: Readiness;
  /** The metrics with `METRICS=on` (the store reports to them), otherwise undefined. */
  readonly metrics: ServiceMetrics | undefined;
}

/** Everything the handler depends on; tests pass their own clock, store and log. */
export interface AppOptions {
  readonly config: Config;
  readonly keys: KeyRing;
  readonly log: Logger;
  /** Milliseconds since the epoch; injectable so a test can stand after the sunset. */
  readonly clock?: () => number;
  /** A store that is ready from the start (tests); otherwise call `app.ready(store)`. */
  readonly store?: PetStore;
  /**
   * Builds each request's one response; the global `Response` unless a runtime adapter offers a
   * lighter Response-compatible class (`RuntimeAdapter.Response`, see runtime/node).
   */
  readonly Response?: ResponseConstructor;
}

/** Creates the service's fetch handler. */
export function createApp(options: AppOptions): App {
  const { config, keys, log } = options;
  const clock = options.clock ?? Date.now;
  const ResponseClass: ResponseConstructor = options.Response ?? Response;
  let readiness: Readiness = options.store === undefined ? "loading" : "ready";
  let store = options.store;

  let inFlight = 0;
  let idleWaiters: (() => void)[] = [];

  /**
   * The store for a request by the state it arrived in, so requests in flight at a drain finish.
   * One function per state, made once, rather than a closure per request.
   */
  const unavailable = (message: string) => (): PetStore => {
    throw new HttpError(503, "unavailable", message, { headers: { "retry-after": "1" } });
  };
  const storeFor: Record<Readiness, () => PetStore> = {
    loading: unavailable("The store is still loading"),
    ready: () => store ?? storeFor.loading(),
    draining: unavailable("The service is shutting down"),
  };

  const apiRoutes = [...petRoutes({ config }), ...openapiRoutes({ config }), ...docsRoutes()];
  const rootRoutes = healthRoutes({
    readiness: () => readiness,
    storeAvailable: () => store?.isAvailable?.() !== false,
  });
  const metrics = config.metrics
    ? new ServiceMetrics(routeTable(config, rootRoutes, apiRoutes))
    : undefined;
  if (metrics !== undefined) {
    rootRoutes.push(...metricsRoutes(metrics, () => ({
      store,
      ready: readiness === "ready" && store?.isAvailable?.() !== false,
      inFlight,
    })));
  }
  const apiRouter = new Router<RequestContext, Reply>(apiRoutes);
  const healthRouter = new Router<RequestContext, Reply>(rootRoutes);
  const successorUrl = `${config.publicUrl ?? ""}${config.basePath}/pets`;
  const deprecated = deprecationHeaders(successorUrl);
  /** The deprecated route's one answer from its sunset on, whatever the method. */
  const gone = () =>
    new HttpError(
      410,
      "gone",
      `This endpoint was removed on ${deprecated.sunset}; use GET ${config.basePath}/pets`,
    );
  const cors = corsPolicyFor(config.corsOrigins);
  const rateLimiter = config.rateLimit > 0
    ? new RateLimiter({ limit: config.rateLimit, clock })
    : undefined;

  /** Routes a request; the common headers it earns (key, deprecation, …) go into `headers`. */
  async function route(
    context: MutableContext,
    headers: Record<string, string>,
  ): Promise<Reply> {
    const { path, method } = context;
    const inApi = config.basePath === "" || path === config.basePath ||
      path.startsWith(config.basePath + "/");
    let match = healthRouter.match(path);
    // Outside BASE_PATH only /metrics asks for a key, and nothing there is rate limited.
    let isPublic = match?.options.public !== false;
    let limited = false;
    if (match === undefined && inApi) {
      match = apiRouter.match(path.slice(config.basePath.length) || "/");
      isPublic = match?.options.public === true;
      limited = true;
      if (match?.options.deprecated) {
        for (const name in deprecated) headers[name] = deprecated[name];
      }
    }
    context.routePattern = match?.pattern;
    const pastSunset = match?.options.deprecated === true && isPastSunset(clock());
    if (match !== undefined && method === "OPTIONS") {
      // Keyless like every OPTIONS, but a removed route allows nothing any more: no 204, no Allow.
      if (pastSunset) throw gone();
      headers.allow = match.allow;
      cors?.preflight(context.request, match.allow, plainHeaderTarget(headers));
      return { status: 204, body: null, headers: {} };
    }
    if (!isPublic) {
      // Set before the key check so that a 401 is not stored by caches either.
      headers["cache-control"] = AUTHENTICATED_CACHE_CONTROL;
      context.keyScope = authenticate(keys, context.request.headers.get("authorization"));
      // Counted after the key check: only accepted keys get buckets, and 401s cost nothing.
      if (rateLimiter !== undefined && limited) {
        enforceRateLimit(rateLimiter, context.keyScope, plainHeaderTarget(headers));
      }
    }
    checkUrlLength(path, context.query);
    if (match === undefined) {
      throw new HttpError(404, "not_found", `No such path: ${path.slice(0, 200)}`);
    }
    // Before the method check: after the sunset the path answers 410 to every method, not 405.
    if (pastSunset) throw gone();
    const handler = findHandler(match, method);
    if (handler === undefined) {
      throw new HttpError(
        405,
        "method_not_allowed",
        `Method ${method.slice(0, 20)} is not allowed here; allowed: ${match.allow}`,
        {
          headers: { allow: match.allow },
        },
      );
    }
    context.params = match.params;
    return await handler(context);
  }

  async function fetch(request: Request): Promise<Response> {
    inFlight++;
    try {
      return await handle(request);
    } finally {
      if (--inFlight === 0 && idleWaiters.length > 0) {
        for (const resolve of idleWaiters) resolve();
        idleWaiters = [];
      }
    }
  }

  async function handle(request: Request): Promise<Response> {
    const started = performance.now();
    const requestId = requestIdFor(request.headers.get("x-request-id"));
    const { path, query } = splitUrl(request.url);
    const context: MutableContext = {
      request,
      method: request.method,
      path,
      query,
      params: {},
      requestId,
      keyScope: "",
      store: storeFor[readiness],
      routePattern: undefined,
    };
    // The common headers, as one plain object: the response is then built once, with all of them,
    // instead of merging two Headers objects per request.
    const headers: Record<string, string> = {};
    let reply: Reply;
    try {
      reply = await route(context, headers);
      // A 304 costs no quota (its token was taken by the check, so a key with none left got 429).
      if (reply.status === 304 && rateLimiter !== undefined && context.keyScope !== "") {
        refundRateLimit(rateLimiter, context.keyScope, plainHeaderTarget(headers));
      }
    } catch (error) {
      reply = errorReply(toHttpError(error, requestId, log), requestId);
    }
    // The reply's own headers win over common ones of the same name; these two always hold.
    for (const name in reply.headers) headers[name] = reply.headers[name];
    headers["x-request-id"] = requestId;
    headers["x-content-type-options"] = "nosniff";
    cors?.decorate(request.headers.get("origin"), plainHeaderTarget(headers));
    // RFC 9110 §9.3.2: HEAD is GET without the content; the headers stay the same, Content-Length
    // included (§8.6). Stated here because a runtime given no body would send 0 (Deno, Bun) or
    // nothing (Node).
    let body = reply.body;
    if (request.method === "HEAD" && body !== null) {
      headers["content-length"] = String(byteLength(body));
      body = null;
    }
    const response = new ResponseClass(body, { status: reply.status, headers });
    const elapsedMs = performance.now() - started;
    metrics?.observe(request.method, context.routePattern, reply.status, elapsedMs / 1000);
    const durationMs = Math.round(elapsedMs * 1000) / 1000;
    // Fields in a fixed order, the key only when one was presented (no spread per request).
    const fields: Record<string, unknown> = {
      msg: "request",
      method: request.method,
      path,
      status: reply.status,
      durationMs,
      requestId,
    };
    if (context.keyScope !== "") fields.key = context.keyScope;
    const traceId = traceIdOf(request.headers.get("traceparent"));
    if (traceId !== undefined) fields.traceId = traceId;
    log.info(fields);
    return response;
  }

  return {
    fetch,
    ready(loaded: PetStore) {
      store = loaded;
      readiness = "ready";
    },
    drain() {
      readiness = "draining";
    },
    idle() {
      if (inFlight === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    get readiness() {
      return readiness;
    },
    metrics,
  };
}

const utf8 = new TextEncoder();

/** The number of bytes `body` is sent as: text goes out as UTF-8. */
function byteLength(body: string | Uint8Array): number {
  return typeof body === "string" ? utf8.encode(body).byteLength : body.byteLength;
}

type MutableContext = { -readonly [K in keyof RequestContext]: RequestContext[K] } & {
  /** The matched router pattern, for the metrics' `route` label. */
  routePattern: string | undefined;
};

/** The route patterns the metrics label requests with: health and metrics at the root. */
function routeTable(
  config: Config,
  rootRoutes: readonly { pattern: string }[],
  apiRoutes: readonly { pattern: string }[],
) {
  return {
    rootPatterns: [...rootRoutes.map((route) => route.pattern), "/metrics"],
    apiPatterns: apiRoutes.map((route) => route.pattern),
    basePath: config.basePath,
  };
}

function findHandler(match: PathMatch<RequestContext, Reply>, method: string) {
  return match.handlers.get(method === "HEAD" ? "GET" : method);
}

/** Path and query of an absolute request URL, by slicing: no `new URL()` per request. */
export function splitUrl(url: string): { path: string; query: string } {
  const schemeEnd = url.indexOf("://");
  let pathStart = url.indexOf("/", schemeEnd === -1 ? 0 : schemeEnd + 3);
  if (pathStart === -1) pathStart = url.length;
  const queryStart = url.indexOf("?", pathStart);
  const hashStart = url.indexOf("#", pathStart);
  const pathEnd = queryStart !== -1 ? queryStart : hashStart !== -1 ? hashStart : url.length;
  const path = url.slice(pathStart, pathEnd) || "/";
  const query = queryStart === -1
    ? ""
    : url.slice(queryStart + 1, hashStart === -1 ? undefined : hashStart);
  return { path, query };
}

function toHttpError(error: unknown, requestId: string, log: Logger): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof StoreUnavailableError) {
    log.warn({ msg: "store unavailable", requestId, error: error.message });
    return new HttpError(503, "unavailable", "The store cannot answer right now; retry later", {
      headers: { "retry-after": "1" },
    });
  }
  log.error({ msg: "unhandled error", requestId, error: describeError(error) });
  return new HttpError(
    500,
    "internal_error",
    "Internal error; the request id identifies it in the logs",
  );
}

function describeError(error: unknown): string {
  return error instanceof Error
    ? `${error.name}: ${error.message}\n${error.stack ?? ""}`
    : String(error);
}
