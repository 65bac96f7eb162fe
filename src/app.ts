/**
 * The application: `createApp(...)` returns one handler that every runtime adapter serves
 * unchanged, `handle(request, respond)`, and its fetch-style form, `fetch(request)`. It answers
 * synchronously when nothing on the way awaits.
 *
 * A request walks numbered steps (`handle`, `route`, `finish`) in an order that carries rules
 * (docs/api.md, "Errors": which error wins; test/app/request_steps.test.ts pins each). Errors are
 * values (`HttpError`) turned into the Error body in one place; anything else is logged and
 * answered with a bare 500. Every reply starts from one of its path's constant header sets
 * (`ReplyHeaders`, made once from the route's declaration); the steps add only what varies.
 */
import type { Config } from "./config/config.ts";
import { authenticate, type KeyRing } from "./http/auth.ts";
import type { BrotliEncoder } from "./runtime/contract.ts";
import type { Readiness, RequestContext } from "./routes/context.ts";
import { corsPolicyFor } from "./http/cors.ts";
import { deprecationHeaders, SUNSET_AT } from "./http/deprecation.ts";
import { ClientGoneError, errorReply, HttpError } from "./http/errors.ts";
import { enforceRateLimit, RateLimiter } from "./http/rate_limit.ts";
import { requestIdFor } from "./http/request_id.ts";
import { traceIdOf } from "./http/trace_context.ts";
import { replyHeaders } from "./http/responses.ts";
import {
  type AppRequest,
  MAX_PATH_SEGMENTS,
  type Reply,
  type Respond,
  webResponse,
} from "./runtime/contract.ts";
import { NO_PARAMS, type PathMatch, type Route, Router } from "./http/router.ts";
import { checkUrlLength, splitUrl } from "./http/url.ts";
import type { Logger } from "./observe/log.ts";
import { ServiceMetrics } from "./observe/service_metrics.ts";
import { healthRoutes } from "./routes/health.ts";
import { docsRoutes } from "./routes/docs.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { openapiRoutes } from "./routes/openapi.ts";
import { petRoutes } from "./routes/pets.ts";
import { type PetStore, StoreUnavailableError } from "./store/store.ts";

/** The handler and the levers `main.ts` pulls at start and shutdown. */
export interface App {
  /** Answers `request` with what `respond` makes of the whole reply (see `ServeOptions.handle`). */
  readonly handle: <R>(request: AppRequest, respond: Respond<R>) => R | Promise<R>;
  /** `handle` answering with a web Response. */
  readonly fetch: (request: AppRequest) => Response | Promise<Response>;
  /** The store finished loading: API requests are served from now on. */
  ready(store: PetStore): void;
  /**
   * Shutting down: `/readyz` answers 503 from now on; every other request is still served as
   * before (the runtime adapter's drain retires the connections).
   */
  drain(): void;
  /** Resolves once no request is in flight (at once when none is). */
  idle(): Promise<void>;
  /** The metrics with `METRICS=on` (the store registers its own there), otherwise undefined. */
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
  /** Compresses br bodies; node:zlib's brotli unless the runtime adapter offers another. */
  readonly brotli?: BrotliEncoder;
  /** How long a request that needs the store waits for it to load; `LOAD_WAIT_MS` by default. */
  readonly loadWaitMs?: number;
}

/**
 * How long a request that needs the store waits for it to load before its 503: an instance a
 * balancer sends requests to as soon as it listens (before `/readyz` says 200) answers them late
 * rather than failing them, within what a client or a proxy waits for an answer.
 */
export const LOAD_WAIT_MS = 10_000;

/** Creates the service's handler. */
export function createApp(options: AppOptions): App {
  const { config, keys, log } = options;
  const { basePath } = config;
  const clock = options.clock ?? Date.now;
  let readiness: Readiness = options.store === undefined ? "loading" : "ready";
  let store = options.store;
  const loadWaitMs = options.loadWaitMs ?? LOAD_WAIT_MS;
  let storeLoaded!: () => void;
  const loaded = new Promise<void>((resolve) => storeLoaded = resolve);

  let inFlight = 0;
  let idleWaiters: (() => void)[] = [];

  /**
   * The store for a request by the state it arrived in: a drain changes only `/readyz`, so
   * requests go on being served until the adapter closes their connections. One function per
   * state, made once, rather than a closure per request.
   */
  const unavailable = (message: string) => (): PetStore => {
    throw new HttpError(503, "unavailable", message, { headers: { "retry-after": "1" } });
  };
  const storeFor: Record<Readiness, () => PetStore> = {
    loading: unavailable("The store is still loading"),
    ready: () => store ?? storeFor.loading(),
    draining: () => store ?? storeFor.loading(),
  };

  /** The store can answer at all (a lost database connection says no): `/readyz` and metrics. */
  const storeAvailable = () => store?.isAvailable?.() !== false;
  const deprecation = deprecationHeaders(`${config.publicUrl ?? ""}${basePath}/pets`);
  /**
   * The routes with whether their path asks for a key (under BASE_PATH unless public; outside it
   * only where `public: false`) and its constant headers, made once: the deprecation trio on every
   * response of a deprecated path, and `no-store` where a key is asked for.
   */
  const declared = <R extends Route<RequestContext, Reply>>(routes: R[], underBase: boolean) =>
    routes.map(({ options = {}, ...route }) => {
      const keyed = underBase ? options.public !== true : options.public === false;
      const deprecated = options.deprecated ? deprecation : undefined;
      return {
        ...route,
        options: { ...options, keyed, headers: replyHeaders({ keyed, deprecation: deprecated }) },
      };
    });
  const apiRoutes = [...petRoutes(options), ...openapiRoutes({ config }), ...docsRoutes()];
  const rootRoutes = healthRoutes({ readiness: () => readiness, storeAvailable });
  const metrics = config.metrics
    ? new ServiceMetrics({
      // The route patterns the metrics label requests with: health and metrics at the root.
      rootPatterns: [...rootRoutes.map((route) => route.pattern), "/metrics"],
      apiPatterns: apiRoutes.map((route) => route.pattern),
      basePath,
    }, {
      ready: () => readiness === "ready" && storeAvailable(),
      inFlight: () => inFlight,
      logLinesDropped: () => log.droppedLines(),
    })
    : undefined;
  if (metrics !== undefined) {
    store?.registerMetrics(metrics.registry);
    rootRoutes.push(...metricsRoutes(metrics.registry));
  }
  const apiRouter = new Router<RequestContext, Reply>(declared(apiRoutes, true));
  const healthRouter = new Router<RequestContext, Reply>(declared(rootRoutes, false));
  /** The headers of a path no route has: a key is asked for under BASE_PATH only. */
  const unknownUnderBase = replyHeaders({ keyed: true });
  const unknownOutside = replyHeaders({ keyed: false });
  /** The deprecated route's one answer from its sunset on, whatever the method. */
  const goneMessage =
    `This endpoint was removed on ${deprecation.sunset}; use GET ${basePath}/pets`;
  const gone = () => new HttpError(410, "gone", goneMessage);
  const cors = corsPolicyFor(config.corsOrigins);
  const rateLimiter = config.rateLimit > 0
    ? new RateLimiter({ limit: config.rateLimit, clock })
    : undefined;

  /** Steps 2 to 9: from the path to the route handler's reply, or the error that wins. */
  function route(context: Steps): Promise<Reply> | Reply {
    const { path, method, unroutable } = context;
    // Step 2: the path, in the health table first, then in the API table under BASE_PATH. A path
    // sent with a backslash (or an empty segment, `http/url.ts`) matches nothing; where it reads
    // as pointing still decides whether the key comes first.
    let match = unroutable ? undefined : healthRouter.match(path);
    const underBase = match === undefined &&
      (basePath === "" || path === basePath || path.startsWith(basePath + "/"));
    if (underBase && !unroutable) match = apiRouter.match(path.slice(basePath.length) || "/");
    context.match = match;
    context.headers = match?.options.headers ?? (underBase ? unknownUnderBase : unknownOutside);
    const pastSunset = match?.options.deprecated === true && clock() >= SUNSET_AT;
    // Step 3: OPTIONS on a known path needs no key: 204 with `Allow` (and CORS preflight). A
    // removed route allows nothing any more: no 204, no Allow.
    if (match !== undefined && method === "OPTIONS") {
      if (pastSunset) throw gone();
      const headers = { ...context.headers.options, allow: match.allow };
      cors?.preflight(context.request, match.allow, headers);
      return { status: 204, body: null, headers };
    }
    // Step 4: the key, before anything else can be wrong (401 wins over 404, 405, 410 and 429).
    // Outside BASE_PATH only /metrics asks for one.
    if (match === undefined ? underBase : match.options.keyed) {
      context.keyScope = authenticate(keys, context.request.headers.get("authorization"));
      // Step 5: the key's rate limit, under BASE_PATH, counted after the key check (only
      // accepted keys get buckets, and 401s cost nothing) and before the path and method checks
      // (429 wins over 404, 405, 410).
      if (rateLimiter !== undefined && underBase) {
        context.rate = enforceRateLimit(rateLimiter, context.keyScope);
      }
    }
    // Step 6: the URL's length (414), once the key is known good.
    checkUrlLength(path, context.query);
    // Step 7: an unknown path (404).
    if (match === undefined) {
      const why = unroutable ? UNROUTABLE_REASON : "";
      throw new HttpError(404, "not_found", `No such path: ${path.slice(0, 200)}${why}`);
    }
    // Step 8: past the sunset the path answers 410 to every method, so before the method check.
    if (pastSunset) throw gone();
    // Step 9: the method; HEAD runs GET's handler (RFC 9110 §9.3.2: the same answer without
    // content, which `finish` drops), others get 405.
    const handler = match.handlers.get(method === "HEAD" ? "GET" : method);
    if (handler === undefined) {
      const message = `Method ${method.slice(0, 20)} is not allowed here; allowed: ${match.allow}`;
      throw new HttpError(405, "method_not_allowed", message, { headers: { allow: match.allow } });
    }
    context.params = match.params;
    // Step 9b: while the store loads, a request its route reads it for waits for the load (up to
    // `loadWaitMs`, then the 503 of a store still loading); the health paths answer at once.
    if (readiness === "loading" && match.options.readsStore === true) {
      return untilLoaded().then(() => {
        context.store = storeFor[readiness];
        return handler(context);
      });
    }
    return handler(context);
  }

  /** Resolves once the store is loaded, or after `loadWaitMs`, whichever comes first. */
  function untilLoaded(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => timer = setTimeout(resolve, loadWaitMs));
    return Promise.race([loaded, waited]).finally(() => clearTimeout(timer));
  }

  /** The reply to a request whose steps threw `error`. */
  function failed(context: Steps, error: unknown): Reply {
    // An OPTIONS answer on a known path came before the key check: no `no-store`.
    const base = context.method === "OPTIONS" && context.match !== undefined
      ? context.headers.options
      : context.headers.reply;
    if (error instanceof ClientGoneError) {
      // It reaches nobody, but its status is what the log line and the metrics show (499, at
      // level info: the client's doing, not a 5xx).
      return { status: error.status, body: null, headers: { ...base } };
    }
    return errorReply(toHttpError(error, context.requestId, log), context.requestId, base);
  }

  /** Steps 10 to 13: the reply made the request's one response, counted and logged. */
  function finish<R>(context: Steps, reply: Reply, started: number, respond: Respond<R>): R {
    try {
      const { request, method, requestId } = context;
      const headers = reply.headers;
      if (context.rate !== undefined) {
        // Step 10: a 304 costs no quota (its token was taken by step 5, so a key with none left
        // got 429 instead).
        const rate = reply.status === 304 ? rateLimiter!.refund(context.keyScope) : context.rate;
        for (const name in rate) headers[name] = rate[name];
      }
      // Step 11: the one response.
      headers["x-request-id"] = requestId;
      cors?.decorate(request.headers.get("origin"), headers);
      // RFC 9110 §9.3.2: HEAD is GET without the content; the headers stay the same,
      // Content-Length included (§8.6). Stated here because a runtime given no body would send 0
      // (Deno, Bun) or nothing (Node).
      let body = reply.body;
      if (method === "HEAD" && body !== null) {
        const length = typeof body === "string" ? utf8.encode(body).byteLength : body.byteLength;
        headers["content-length"] = String(length);
        body = null;
      }
      const response = respond({ status: reply.status, body, headers });
      // Steps 12 and 13: the metrics and the request's one log line.
      const elapsedMs = performance.now() - started;
      metrics?.observe(method, context.match?.pattern, reply.status, elapsedMs / 1000);
      log.request({
        method,
        path: context.path,
        status: reply.status,
        durationMs: Math.round(elapsedMs * 1000) / 1000,
        requestId,
        key: context.keyScope,
        traceId: traceIdOf(request.headers.get("traceparent")),
      });
      return response;
    } finally {
      if (--inFlight === 0 && idleWaiters.length > 0) {
        for (const resolve of idleWaiters) resolve();
        idleWaiters = [];
      }
    }
  }

  /**
   * One request, from the adapter's request to its one response: synchronous unless the route
   * awaits (a body, a write, a database), so a read of the file store makes no promise at all.
   */
  function handle<R>(request: AppRequest, respond: Respond<R>): R | Promise<R> {
    inFlight++;
    const started = performance.now();
    // Step 1: path and query, by slicing the URL.
    const { path, query, unroutable } = splitUrl(request.url);
    const context: Steps = {
      request,
      method: request.method,
      path,
      query,
      params: NO_PARAMS,
      requestId: requestIdFor(request.headers.get("x-request-id")),
      keyScope: "",
      store: storeFor[readiness],
      headers: unknownOutside,
      match: undefined,
      rate: undefined,
      unroutable: unroutable || request.unroutable === true,
    };
    let reply: Promise<Reply> | Reply;
    try {
      reply = route(context);
    } catch (error) {
      reply = failed(context, error);
    }
    if (reply instanceof Promise) {
      return reply.then(
        (reply) => finish(context, reply, started, respond),
        (error) => finish(context, failed(context, error), started, respond),
      );
    }
    return finish(context, reply, started, respond);
  }

  return {
    handle,
    fetch: (request) => handle(request, webResponse),
    ready(opened: PetStore) {
      store = opened;
      if (readiness === "loading") readiness = "ready";
      if (metrics !== undefined) opened.registerMetrics(metrics.registry);
      storeLoaded();
    },
    drain() {
      readiness = "draining";
    },
    idle() {
      if (inFlight === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    metrics,
  };
}

/** Text bodies go out as UTF-8. */
const utf8 = new TextEncoder();

/** The handler's context, and what the steps hand on to `finish`. */
type Steps = { -readonly [K in keyof RequestContext]: RequestContext[K] } & {
  /** The matched path (its pattern labels the metrics). */
  match: PathMatch<RequestContext, Reply> | undefined;
  /** The rate-limit headers the key's request earned, when it is counted. */
  rate: Record<string, string> | undefined;
  /** The path as sent names nothing (`http/url.ts`), whatever `path` reads. */
  unroutable: boolean;
};

/** Why a path that reads as a known one was not found: it was not sent as that path. */
const UNROUTABLE_REASON = " (as sent, the path holds a backslash, an empty segment or more than " +
  `${MAX_PATH_SEGMENTS} segments, and names nothing)`;

function toHttpError(error: unknown, requestId: string, log: Logger): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof StoreUnavailableError) {
    log.warn({ msg: "store unavailable", requestId, error: error.message });
    return new HttpError(503, "unavailable", "The store cannot answer right now; retry later", {
      headers: { "retry-after": "1" },
    });
  }
  const described = error instanceof Error
    ? `${error.name}: ${error.message}\n${error.stack ?? ""}`
    : String(error);
  log.error({ msg: "unhandled error", requestId, error: described });
  const message = "Internal error; the request id identifies it in the logs";
  return new HttpError(500, "internal_error", message);
}
