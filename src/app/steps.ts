/**
 * A request's steps, in the order that says which error wins (docs/api.md, "Errors"; pinned by
 * test/app/request_steps.test.ts): each answers (a `Reply`, or a thrown `HttpError`) or hands on
 * to the next, then `finish`. Any other error is logged: 503 if the store cannot answer, else 500.
 */
import { authenticate, type KeyRing } from "../http/auth.ts";
import type { CorsPolicy } from "../http/cors.ts";
import { SUNSET_AT } from "../http/deprecation.ts";
import { ClientGoneError, errorReply, HttpError } from "../http/errors.ts";
import { enforceRateLimit, type RateLimiter } from "../http/rate_limit.ts";
import { requestIdFor, traceIdOf } from "../http/request_id.ts";
import { type ReplyHeaders, replyHeaders } from "../http/responses.ts";
import { NO_PARAMS, type PathMatch, type Router } from "../http/router.ts";
import { checkUrlLength, splitUrl } from "../http/url.ts";
import type { Logger } from "../observe/log.ts";
import type { ServiceMetrics } from "../observe/service_metrics.ts";
import type { AppRequest, Reply, Respond } from "../runtime/contract.ts";
import { MAX_PATH_SEGMENTS } from "../runtime/contract.ts";
import { ERROR_MESSAGES } from "../schemas/error.ts";
import { StoreUnavailableError } from "../store/store.ts";
import type { RequestContext, RouteOptions } from "./context.ts";
import { type Lifecycle, STORE_CANNOT_ANSWER, unavailable } from "./lifecycle.ts";

/** A path's declaration with what the app made of it once. */
export interface PathFacts extends RouteOptions {
  readonly keyed: boolean;
  readonly headers: ReplyHeaders;
}

export type AppRouter = Router<RequestContext, Reply, PathFacts>;

/** What the steps read, made once per app. */
export interface Pipeline {
  readonly basePath: string;
  /** `/healthz`, `/readyz`, `/metrics`: outside BASE_PATH, matched first. */
  readonly rootRouter: AppRouter;
  readonly apiRouter: AppRouter;
  /** The deprecated route's one answer from its sunset on, whatever the method. */
  readonly goneMessage: string;
  readonly keys: KeyRing;
  readonly rateLimiter: RateLimiter | undefined;
  readonly cors: CorsPolicy | undefined;
  readonly clock: () => number;
  readonly lifecycle: Lifecycle;
  readonly metrics: ServiceMetrics | undefined;
  readonly log: Logger;
}

/** The handler's context, and what the steps hand on to each other and to `finish`. */
type Exchange = { -readonly [K in keyof RequestContext]: RequestContext[K] } & {
  match: PathMatch<RequestContext, Reply, PathFacts> | undefined;
  /** The path reads as under BASE_PATH (a key is asked for there, matched or not). */
  underBase: boolean;
  keyed: boolean;
  /** The path is deprecated and its sunset has come. */
  pastSunset: boolean;
  /** The rate-limit headers the key's request earned, when it is counted. */
  rate: Record<string, string> | undefined;
  /** The path as sent names nothing (`http/url.ts`), whatever `path` reads. */
  unroutable: boolean;
};

/** One step: a reply (or a promise of one) ends the walk; undefined hands on to the next step. */
type Step = (pipeline: Pipeline, exchange: Exchange) => Reply | Promise<Reply> | undefined;

/**
 * The path, in the root table first, then the API table under BASE_PATH. An unroutable path
 * matches nothing, but where it reads as pointing still decides whether a key is asked for.
 */
export function matchPath(pipeline: Pipeline, exchange: Exchange): undefined {
  const { basePath } = pipeline;
  const { path, unroutable } = exchange;
  let match = unroutable ? undefined : pipeline.rootRouter.match(path);
  const underBase = match === undefined &&
    (basePath === "" || path === basePath || path.startsWith(basePath + "/"));
  if (underBase && !unroutable) {
    match = pipeline.apiRouter.match(path.slice(basePath.length) || "/");
  }
  exchange.match = match;
  exchange.underBase = underBase;
  exchange.keyed = match === undefined ? underBase : match.options.keyed === true;
  exchange.headers = match?.options.headers ??
    (underBase ? UNKNOWN_UNDER_BASE : UNKNOWN_OUTSIDE);
  exchange.pastSunset = match?.options.deprecated === true && pipeline.clock() >= SUNSET_AT;
}

/** OPTIONS on a known path needs no key: 204 with `Allow` and CORS; a removed route gets 410. */
export function answerOptions(pipeline: Pipeline, exchange: Exchange): Reply | undefined {
  const { match } = exchange;
  if (match === undefined || exchange.method !== "OPTIONS") return undefined;
  if (exchange.pastSunset) throw new HttpError(410, "gone", pipeline.goneMessage);
  const headers = { ...exchange.headers.options, allow: match.allow };
  pipeline.cors?.preflight(exchange.request, match.allow, headers);
  return { status: 204, body: null, headers };
}

/** The key, before anything else can be wrong (401 wins over 404, 405, 410 and 429). */
export function checkKey(pipeline: Pipeline, exchange: Exchange): undefined {
  if (exchange.keyed) {
    exchange.keyScope = authenticate(pipeline.keys, exchange.request.headers.get("authorization"));
  }
}

/** Under BASE_PATH, after the key (only accepted keys get buckets): 429 wins over 404, 405, 410. */
export function limitRate(pipeline: Pipeline, exchange: Exchange): undefined {
  if (pipeline.rateLimiter !== undefined && exchange.keyed && exchange.underBase) {
    exchange.rate = enforceRateLimit(pipeline.rateLimiter, exchange.keyScope);
  }
}

/** The URL's length (414 reads as 404 or 400, `http/url.ts`), once the key is known good. */
export function checkUrl(_pipeline: Pipeline, exchange: Exchange): undefined {
  checkUrlLength(exchange.path, exchange.query);
}

/**
 * The handler: 404 for an unknown path, 410 past the sunset whatever the method, then HEAD runs
 * GET's handler (RFC 9110 §9.3.2; `finish` drops the content) or 405. While the store loads, a
 * route that reads it waits for the load, up to the load wait.
 */
export function dispatch(pipeline: Pipeline, exchange: Exchange): Reply | Promise<Reply> {
  const { match, method, path } = exchange;
  if (match === undefined) {
    const why = exchange.unroutable ? UNROUTABLE_REASON : "";
    throw new HttpError(404, "not_found", `No such path: ${path.slice(0, 200)}${why}`);
  }
  if (exchange.pastSunset) throw new HttpError(410, "gone", pipeline.goneMessage);
  const handler = match.handlers.get(method === "HEAD" ? "GET" : method);
  if (handler === undefined) {
    const message = `Method ${method.slice(0, 20)} is not allowed here; allowed: ${match.allow}`;
    throw new HttpError(405, "method_not_allowed", message, { headers: { allow: match.allow } });
  }
  exchange.params = match.params;
  const { lifecycle } = pipeline;
  if (lifecycle.readiness === "loading" && match.options.readsStore === true) {
    return lifecycle.untilLoaded().then(() => {
      exchange.store = lifecycle.storeForRequest();
      return handler(exchange);
    });
  }
  return handler(exchange);
}

/** The first step that answers ends the walk; `dispatch` always does. */
export const REQUEST_STEPS: readonly Step[] = [
  matchPath,
  answerOptions,
  checkKey,
  limitRate,
  checkUrl,
  dispatch,
];

/** One request to its one response: synchronous unless a step awaits. */
export function handleRequest<R>(
  pipeline: Pipeline,
  request: AppRequest,
  respond: Respond<R>,
): R | Promise<R> {
  pipeline.lifecycle.begin();
  const started = performance.now();
  const { path, query, unroutable } = splitUrl(request.url);
  const exchange: Exchange = {
    request,
    method: request.method,
    path,
    query,
    params: NO_PARAMS,
    requestId: requestIdFor(request.headers.get("x-request-id")),
    keyScope: "",
    store: pipeline.lifecycle.storeForRequest(),
    headers: UNKNOWN_OUTSIDE,
    match: undefined,
    underBase: false,
    keyed: false,
    pastSunset: false,
    rate: undefined,
    unroutable: unroutable || request.unroutable === true,
  };
  let reply: Promise<Reply> | Reply | undefined;
  try {
    for (const step of REQUEST_STEPS) {
      reply = step(pipeline, exchange);
      if (reply !== undefined) break;
    }
  } catch (error) {
    reply = failed(pipeline, exchange, error);
  }
  if (reply instanceof Promise) {
    return reply.then(
      (reply) => finish(pipeline, exchange, reply, started, respond),
      (error) => finish(pipeline, exchange, failed(pipeline, exchange, error), started, respond),
    );
  }
  return finish(pipeline, exchange, reply!, started, respond);
}

/** The error's reply: a store that cannot answer is 503, anything unknown 500 (logged). */
function failed(pipeline: Pipeline, exchange: Exchange, error: unknown): Reply {
  // An OPTIONS answer on a known path came before the key check: no `no-store`.
  const base = exchange.method === "OPTIONS" && exchange.match !== undefined
    ? exchange.headers.options
    : exchange.headers.reply;
  if (error instanceof ClientGoneError) {
    // It reaches nobody; its 499 is for the log line and the metrics (the client's doing).
    return { status: error.status, body: null, headers: { ...base } };
  }
  const { requestId } = exchange;
  if (error instanceof HttpError) return errorReply(error, requestId, base);
  if (error instanceof StoreUnavailableError) {
    pipeline.log.warn({ msg: "store unavailable", requestId, error: error.message });
    return errorReply(unavailable(STORE_CANNOT_ANSWER), requestId, base);
  }
  const described = error instanceof Error
    ? `${error.name}: ${error.message}\n${error.stack ?? ""}`
    : String(error);
  pipeline.log.error({ msg: "unhandled error", requestId, error: described });
  return errorReply(new HttpError(500, "internal_error", ERROR_MESSAGES.internal), requestId, base);
}

/** The reply made the one response, counted and logged; a 304 gives its rate-limit token back. */
export function finish<R>(
  pipeline: Pipeline,
  exchange: Exchange,
  reply: Reply,
  started: number,
  respond: Respond<R>,
): R {
  try {
    const { request, method, requestId } = exchange;
    const headers = reply.headers;
    if (exchange.rate !== undefined) {
      const rate = reply.status === 304
        ? pipeline.rateLimiter!.refund(exchange.keyScope)
        : exchange.rate;
      for (const name in rate) headers[name] = rate[name];
    }
    headers["x-request-id"] = requestId;
    pipeline.cors?.decorate(request.headers.get("origin"), headers);
    // HEAD keeps GET's Content-Length (RFC 9110 §8.6), which a runtime given no body would send
    // as 0 (Deno, Bun) or leave out (Node).
    let body = reply.body;
    if (method === "HEAD" && body !== null) {
      const length = typeof body === "string" ? utf8.encode(body).byteLength : body.byteLength;
      headers["content-length"] = String(length);
      body = null;
    }
    const response = respond({ status: reply.status, body, headers });
    const elapsedMs = performance.now() - started;
    pipeline.metrics?.observe(method, exchange.match?.pattern, reply.status, elapsedMs / 1000);
    pipeline.log.request({
      method,
      path: exchange.path,
      status: reply.status,
      durationMs: Math.round(elapsedMs * 1000) / 1000,
      requestId,
      key: exchange.keyScope,
      traceId: traceIdOf(request.headers.get("traceparent")),
    });
    return response;
  } finally {
    pipeline.lifecycle.end();
  }
}

/** The headers of a path no route has: a key is asked for under BASE_PATH only. */
const UNKNOWN_UNDER_BASE = replyHeaders({ keyed: true });
const UNKNOWN_OUTSIDE = replyHeaders({ keyed: false });

const utf8 = new TextEncoder();

const UNROUTABLE_REASON = " (as sent, the path holds a backslash, an empty segment or more than " +
  `${MAX_PATH_SEGMENTS} segments, and names nothing)`;
