/**
 * The application: `createApp(...)` returns one fetch-style handler,
 * `(request: Request) => Promise<Response>`, that every runtime adapter serves unchanged.
 *
 * A request walks one line of named steps, in an order that carries rules (docs/api.md, "Errors":
 * which error wins): `handle` splits the URL, `route` matches the path, answers OPTIONS, checks
 * the key, the rate limit and the URL length, answers 404, 410 and 405, and runs the route's
 * handler; `handle` then refunds a 304's token, builds the one Response, observes the metrics
 * and writes the log line. test/request_steps.test.ts pins each rule the order carries. Errors
 * are values (`HttpError`) turned into the Error body in one place; anything else is logged and
 * answered with a bare 500.
 */
import type { Config } from "./config/config.ts";
import { authenticate, type KeyRing } from "./http/auth.ts";
import type { BrotliEncoder } from "./http/compression.ts";
import type { Readiness, RequestContext } from "./http/context.ts";
import { corsPolicyFor } from "./http/cors.ts";
import { deprecationHeaders, isPastSunset } from "./http/deprecation.ts";
import { CLIENT_CLOSED_REQUEST, ClientGoneError, errorReply, HttpError } from "./http/errors.ts";
import { enforceRateLimit, RateLimiter, refundRateLimit } from "./http/rate_limit.ts";
import { buildResponse, type HeaderSet, headerSet } from "./http/header_sets.ts";
import { requestIdFor } from "./http/request_id.ts";
import { traceIdOf } from "./http/trace_context.ts";
import {
  AUTHENTICATED_CACHE_CONTROL,
  plainHeaderTarget,
  type Reply,
  type ResponseConstructor,
} from "./http/responses.ts";
import { handlerFor, type PathMatch, Router } from "./http/router.ts";
import { checkUrlLength } from "./http/url_limit.ts";
import type { Logger } from "./log.ts";
import { ServiceMetrics } from "./metrics/service_metrics.ts";
import { healthRoutes } from "./routes/health.ts";
import { docsRoutes } from "./routes/docs.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { openapiRoutes } from "./routes/openapi.ts";
import { petRoutes } from "./routes/pets.ts";
import { type PetStore, StoreUnavailableError } from "./store/store.ts";

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
  /**
   * Builds each request's one response; the global `Response` unless a runtime adapter offers a
   * lighter Response-compatible class (`RuntimeAdapter.Response`, see runtime/node).
   */
  readonly Response?: ResponseConstructor;
  /** Compresses br bodies; node:zlib's brotli unless the runtime adapter offers another. */
  readonly brotli?: BrotliEncoder;
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

  /** The store can answer at all (a lost database connection says no): `/readyz` and metrics. */
  const storeAvailable = () => store?.isAvailable?.() !== false;
  const apiRoutes = [...petRoutes(options), ...openapiRoutes({ config }), ...docsRoutes()];
  const rootRoutes = healthRoutes({ readiness: () => readiness, storeAvailable });
  const metrics = config.metrics
    ? new ServiceMetrics(routeTable(config, rootRoutes, apiRoutes), {
      ready: () => readiness === "ready" && storeAvailable(),
      inFlight: () => inFlight,
    })
    : undefined;
  if (metrics !== undefined) {
    store?.registerMetrics(metrics.registry);
    rootRoutes.push(...metricsRoutes(metrics.registry));
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

  // The headers every response of a kind starts with, made once: nosniff always; `no-store` on
  // paths that ask for a key, set before the key check so that a 401 is not stored by caches
  // either; the deprecation trio on every response of the deprecated path.
  const nosniff = { "x-content-type-options": "nosniff" };
  const noStore = { "cache-control": AUTHENTICATED_CACHE_CONTROL };
  /** By route kind, then by whether the path asks for a key. */
  const baseHeaders = {
    current: {
      keyless: headerSet(nosniff),
      keyed: headerSet({ ...nosniff, ...noStore }),
    },
    deprecated: {
      keyless: headerSet({ ...nosniff, ...deprecated }),
      keyed: headerSet({ ...nosniff, ...deprecated, ...noStore }),
    },
  };

  // The steps of `route`, in its order; each says which rule its place carries.

  /** Step 2: the path, in the health table first, then in the API table under BASE_PATH. */
  function matchPath(context: MutableContext): void {
    const { path } = context;
    let match = healthRouter.match(path);
    if (match !== undefined) {
      // Outside BASE_PATH only /metrics asks for a key, and nothing there is rate limited.
      context.isPublic = match.options.public !== false;
    } else if (
      config.basePath === "" || path === config.basePath ||
      path.startsWith(config.basePath + "/")
    ) {
      match = apiRouter.match(path.slice(config.basePath.length) || "/");
      context.isPublic = match?.options.public === true;
      context.rateLimited = true;
      if (match?.options.deprecated) context.headerKind = baseHeaders.deprecated;
    }
    context.match = match;
    context.baseHeaders = context.headerKind.keyless;
    context.pastSunset = match?.options.deprecated === true && isPastSunset(clock());
  }

  /** Step 3: OPTIONS on a known path needs no key: 204 with `Allow` (and CORS preflight). */
  function answerOptions(context: MutableContext, match: PathMatch<RequestContext, Reply>): Reply {
    // A removed route allows nothing any more: no 204, no Allow.
    if (context.pastSunset) throw gone();
    context.headers.allow = match.allow;
    cors?.preflight(context.request, match.allow, plainHeaderTarget(context.headers));
    return { status: 204, body: null, headers: {} };
  }

  /** Step 4: the key, before anything else can be wrong (401 wins over 404, 405, 410 and 429). */
  function checkKey(context: MutableContext): void {
    context.baseHeaders = context.headerKind.keyed;
    context.keyScope = authenticate(keys, context.request.headers.get("authorization"));
  }

  /**
   * Step 5: the key's rate limit, counted after the key check (only accepted keys get buckets,
   * and 401s cost nothing) and before the path and method checks (429 wins over 404, 405, 410).
   */
  function limitRate(context: MutableContext): void {
    if (rateLimiter !== undefined && context.rateLimited) {
      enforceRateLimit(rateLimiter, context.keyScope, plainHeaderTarget(context.headers));
    }
  }

  /** Steps 2 to 9: from the path to the route handler's reply, or the error that wins. */
  function route(context: MutableContext): Promise<Reply> | Reply {
    matchPath(context);
    const { match, method, path } = context;
    if (match !== undefined && method === "OPTIONS") return answerOptions(context, match);
    if (!context.isPublic) {
      checkKey(context);
      limitRate(context);
    }
    // Step 6: the URL's length (414), once the key is known good.
    checkUrlLength(path, context.query);
    // Step 7: an unknown path (404).
    if (match === undefined) {
      throw new HttpError(404, "not_found", `No such path: ${path.slice(0, 200)}`);
    }
    // Step 8: past the sunset the path answers 410 to every method, so before the method check.
    if (context.pastSunset) throw gone();
    // Step 9: the method; HEAD runs GET's handler (the router's default), others get 405.
    const handler = handlerFor(match, method);
    if (handler === undefined) {
      throw new HttpError(
        405,
        "method_not_allowed",
        `Method ${method.slice(0, 20)} is not allowed here; allowed: ${match.allow}`,
        { headers: { allow: match.allow } },
      );
    }
    context.params = match.params;
    return handler(context);
  }

  /**
   * One request, from the adapter's Request to its one Response: the in-flight count (for
   * `idle()` at shutdown) is kept here rather than in a wrapper, one async frame fewer a request.
   */
  async function handle(request: Request): Promise<Response> {
    inFlight++;
    try {
      const started = performance.now();
      const method = request.method;
      const requestId = requestIdFor(request.headers.get("x-request-id"));
      // Step 1: path and query, by slicing the URL.
      const { path, query } = splitUrl(request.url);
      const context: MutableContext = {
        request,
        method,
        path,
        query,
        params: NO_PARAMS,
        requestId,
        keyScope: "",
        store: storeFor[readiness],
        match: undefined,
        isPublic: true,
        rateLimited: false,
        pastSunset: false,
        headerKind: baseHeaders.current,
        baseHeaders: baseHeaders.current.keyless,
        headers: {},
      };
      let reply: Reply;
      try {
        reply = await route(context);
        // Step 10: a 304 costs no quota (its token was taken by step 5, so a key with none left
        // got 429 instead).
        if (reply.status === 304 && rateLimiter !== undefined && context.keyScope !== "") {
          refundRateLimit(rateLimiter, context.keyScope, plainHeaderTarget(context.headers));
        }
      } catch (error) {
        reply = error instanceof ClientGoneError
          ? CLIENT_GONE
          : errorReply(toHttpError(error, requestId, log), requestId);
      }
      // Step 11: the one Response. The reply's own headers win over the ones the steps earned.
      const headers = context.headers;
      for (const name in reply.headers) headers[name] = reply.headers[name];
      headers["x-request-id"] = requestId;
      cors?.decorate(request.headers.get("origin"), plainHeaderTarget(headers));
      // RFC 9110 §9.3.2: HEAD is GET without the content; the headers stay the same,
      // Content-Length included (§8.6). Stated here because a runtime given no body would send 0
      // (Deno, Bun) or nothing (Node).
      let body = reply.body;
      if (method === "HEAD" && body !== null) {
        headers["content-length"] = String(byteLength(body));
        body = null;
      }
      const response = buildResponse(ResponseClass, { status: reply.status, body }, {
        base: context.baseHeaders,
        own: headers,
      });
      // Steps 12 and 13: the metrics and the request's one log line.
      const elapsedMs = performance.now() - started;
      metrics?.observe(method, context.match?.pattern, reply.status, elapsedMs / 1000);
      log.request({
        method,
        path,
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

  return {
    fetch: handle,
    ready(loaded: PetStore) {
      store = loaded;
      readiness = "ready";
      if (metrics !== undefined) loaded.registerMetrics(metrics.registry);
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

/**
 * The reply to a request whose client went away mid-body: it reaches nobody, but its status is
 * what the log line and the metrics show (499, at level info: the client's doing, not a 5xx).
 */
const CLIENT_GONE: Reply = Object.freeze({
  status: CLIENT_CLOSED_REQUEST,
  body: null,
  headers: Object.freeze({}),
});

/** Params of a path with none: one frozen object rather than one per request. */
const NO_PARAMS: Record<string, string> = Object.freeze({});

/** The context and what the steps work out for the later ones. */
type MutableContext = { -readonly [K in keyof RequestContext]: RequestContext[K] } & {
  match: PathMatch<RequestContext, Reply> | undefined;
  /** No key asked (health, docs, OpenAPI, or no path at all outside BASE_PATH). */
  isPublic: boolean;
  /** Under BASE_PATH: the key's requests count against its rate limit. */
  rateLimited: boolean;
  /** The deprecated path, from its sunset on. */
  pastSunset: boolean;
  /** The constant headers the response starts with (nosniff, no-store, deprecation). */
  baseHeaders: HeaderSet;
  /** The header sets of the matched route's kind (deprecated or not), keyless and keyed. */
  headerKind: { readonly keyless: HeaderSet; readonly keyed: HeaderSet };
  /** Headers the steps earned (rate limit, Allow, CORS), then the reply's own. */
  headers: Record<string, string>;
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

/**
 * Path and query of a request URL, by slicing: no `new URL()` per request. The URL is absolute
 * (`http://host/path?query`, the authority ending at its first `/`, `?` or `#`) or, as Bun gives
 * it when the Host header is not a valid host, the origin-form target itself (`/path?query`).
 * The path's `.` and `..` segments are removed (see `removeDotSegments`), only when it may have
 * some: one regular expression test, about 25 ns, is all an ordinary path costs.
 */
export function splitUrl(url: string): { path: string; query: string } {
  let authorityStart = 0;
  if (url.charCodeAt(0) !== SLASH) {
    const schemeEnd = url.indexOf("://");
    if (schemeEnd !== -1) authorityStart = schemeEnd + 3;
  }
  const slash = url.indexOf("/", authorityStart);
  const hashStart = url.indexOf("#", authorityStart);
  let queryStart = url.indexOf("?", authorityStart);
  let pathEnd = hashStart === -1 ? url.length : hashStart;
  if (queryStart !== -1 && queryStart < pathEnd) pathEnd = queryStart;
  else queryStart = -1; // none, or a `?` in the fragment
  // No `/` before the query or fragment: the path is empty (`http://host?query`).
  const pathStart = slash !== -1 && slash < pathEnd ? slash : pathEnd;
  let path = url.slice(pathStart, pathEnd) || "/";
  if (MAYBE_DOT_SEGMENT.test(path)) path = removeDotSegments(path);
  const query = queryStart === -1
    ? ""
    : url.slice(queryStart + 1, hashStart === -1 ? undefined : hashStart);
  return { path, query };
}

const SLASH = 0x2f;
/** A segment starting with `.` or `%` (`%2e`), or a backslash: what `removeDotSegments` changes. */
const MAYBE_DOT_SEGMENT = /\/[.%]|\\/;
const SINGLE_DOT = /^(?:\.|%2e)$/i;
const DOUBLE_DOT = /^(?:\.|%2e){2}$/i;

/**
 * A path with its `.` and `..` segments applied and removed (RFC 3986 §5.2.4,
 * remove_dot_segments), so that every runtime routes `/v1/docs/../pets` as `/v1/pets`. Bun hands
 * over paths already normalised by the WHATWG URL parser, which also takes `%2e` for a dot and
 * `\` for a `/` in http(s) URLs; the same is done here so that Deno and Node give the same answer.
 * `..` never climbs above the root, and a dot segment at the end leaves a trailing `/`.
 */
export function removeDotSegments(path: string): string {
  const segments = path.replaceAll("\\", "/").split("/");
  const output: string[] = [];
  // segments[0] is the empty string before the path's leading "/".
  for (let at = 1; at < segments.length; at++) {
    const segment = segments[at];
    const last = at === segments.length - 1;
    if (SINGLE_DOT.test(segment)) {
      if (last) output.push("");
    } else if (DOUBLE_DOT.test(segment)) {
      output.pop();
      if (last) output.push("");
    } else {
      output.push(segment);
    }
  }
  return "/" + output.join("/");
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
