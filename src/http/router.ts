/**
 * A hand-rolled router: routes are data, matched segment by segment (Node 20 has no
 * URLPattern). A path is matched first, then the method, so the caller can answer 404, 405 with
 * `Allow`, OPTIONS and HEAD in one place, and can decorate every response for a path (the
 * deprecated route's headers) whatever its status.
 */
import type { ReplyHeaders } from "./responses.ts";

/** A route handler; params come from `:name` segments of the pattern. */
export type Handler<Context, Result = Response> = (context: Context) => Promise<Result> | Result;

/** Per-path facts the app acts on before the handler runs. */
export interface PathOptions {
  /** Served without an API key. */
  readonly public?: boolean;
  /** Marks a deprecated path (headers on every response, 410 after sunset). */
  readonly deprecated?: boolean;
  /** The constant headers of the path's replies (the app makes them from the two above). */
  readonly headers?: ReplyHeaders;
}

/** One route: a method and a pattern such as `/pets/:petId`. */
export interface Route<Context, Result = Response> {
  readonly method: string;
  readonly pattern: string;
  readonly handler: Handler<Context, Result>;
  readonly options?: PathOptions;
}

/** A path that matched: its handlers per method and the captured params. */
export interface PathMatch<Context, Result = Response> {
  readonly pattern: string;
  readonly params: Record<string, string>;
  readonly options: PathOptions;
  readonly handlers: ReadonlyMap<string, Handler<Context, Result>>;
  /** The `Allow` header value for this path: its methods, plus HEAD and OPTIONS. */
  readonly allow: string;
}

interface CompiledPath<Context, Result> {
  readonly pattern: string;
  readonly segments: readonly string[];
  readonly options: PathOptions;
  readonly handlers: Map<string, Handler<Context, Result>>;
  allow: string;
}

const NO_PARAMS: Record<string, string> = Object.freeze({});

const METHOD = /^[A-Z]+$/;
const PARAM = /^:[A-Za-z][A-Za-z0-9]*$/;
const LITERAL = /^[A-Za-z0-9._~-]+$/;

/**
 * Matches request paths against a table of routes. A literal path (no `:param`) is found by one
 * map lookup, before any pattern and without splitting the request path into segments: the split
 * showed in the profile of every request (each request asks two routers). So a literal path wins
 * over a pattern that would also match it.
 */
export class Router<Context, Result = Response> {
  private readonly paths: CompiledPath<Context, Result>[] = [];
  /** The match of each literal path, made when routes are added (params frozen empty). */
  private readonly literalMatches = new Map<string, PathMatch<Context, Result>>();
  private hasPatterns = false;

  constructor(routes: readonly Route<Context, Result>[]) {
    for (const route of routes) this.add(route);
  }

  /** Registers a route; a malformed pattern or a duplicate fails here, not per request. */
  add(route: Route<Context, Result>): void {
    if (!METHOD.test(route.method)) throw new Error(`Invalid route method: ${route.method}`);
    if (route.method === "HEAD" || route.method === "OPTIONS") {
      throw new Error(`Route ${route.pattern}: HEAD and OPTIONS are answered by the router`);
    }
    const segments = splitPath(route.pattern);
    if (segments === undefined) throw new Error(`Invalid route pattern: ${route.pattern}`);
    for (const segment of segments) {
      if (!PARAM.test(segment) && !LITERAL.test(segment)) {
        throw new Error(`Invalid route pattern segment "${segment}" in ${route.pattern}`);
      }
    }
    let path = this.paths.find((candidate) => candidate.pattern === route.pattern);
    if (path === undefined) {
      path = {
        pattern: route.pattern,
        segments,
        options: route.options ?? {},
        handlers: new Map(),
        allow: "",
      };
      this.paths.push(path);
    }
    if (path.handlers.has(route.method)) {
      throw new Error(`Duplicate route: ${route.method} ${route.pattern}`);
    }
    path.handlers.set(route.method, route.handler);
    path.allow = allowHeader([...path.handlers.keys()]);
    if (segments.some((segment) => PARAM.test(segment))) {
      this.hasPatterns = true;
    } else {
      this.literalMatches.set(route.pattern, {
        pattern: path.pattern,
        params: NO_PARAMS,
        options: path.options,
        handlers: path.handlers,
        allow: path.allow,
      });
    }
  }

  /** Finds the path a request path names, or undefined (a 404). */
  match(path: string): PathMatch<Context, Result> | undefined {
    const literal = this.literalMatches.get(path);
    if (literal !== undefined || !this.hasPatterns) return literal;
    if (path.charCodeAt(0) !== 0x2f /* / */) return undefined;
    for (const candidate of this.paths) {
      const params = matchSegments(candidate.segments, path);
      if (params !== undefined) {
        return {
          pattern: candidate.pattern,
          params,
          options: candidate.options,
          handlers: candidate.handlers,
          allow: candidate.allow,
        };
      }
    }
    return undefined;
  }
}

/**
 * The handler for `method` on a matched path, or undefined (a 405). HEAD runs GET's handler
 * (RFC 9110 §9.3.2: the same answer without content, which the caller drops); OPTIONS has none
 * here because the caller answers it from `allow`.
 */
export function handlerFor<Context, Result>(
  match: PathMatch<Context, Result>,
  method: string,
): Handler<Context, Result> | undefined {
  return match.handlers.get(method === "HEAD" ? "GET" : method);
}

/** `/a/b` → `["a", "b"]`; `/` → `[]`; an empty segment (`//`, trailing `/`) → undefined. */
function splitPath(path: string): string[] | undefined {
  if (!path.startsWith("/")) return undefined;
  if (path === "/") return [];
  const segments = path.slice(1).split("/");
  return segments.includes("") ? undefined : segments;
}

/**
 * The params of `path` (which starts with `/`) if it matches the pattern's segments. Walks the
 * path in place, as `splitPath` would cut it (an empty segment matches nothing), without the
 * array of segments a split makes per request (it showed in every profile of a get by id).
 */
function matchSegments(
  pattern: readonly string[],
  path: string,
): Record<string, string> | undefined {
  if (pattern.length === 0) return path === "/" ? {} : undefined;
  let params: Record<string, string> | undefined;
  let at = 1;
  for (let i = 0; i < pattern.length; i++) {
    if (at >= path.length) return undefined;
    let end = path.indexOf("/", at);
    if (end === -1) end = path.length;
    if (end === at) return undefined;
    const expected = pattern[i];
    if (expected.charCodeAt(0) === 0x3a /* : */) {
      params ??= {};
      params[expected.slice(1)] = path.slice(at, end);
    } else if (expected.length !== end - at || !path.startsWith(expected, at)) {
      return undefined;
    }
    at = end + 1;
  }
  // Past the end exactly: no segment left over, and no trailing `/` (an empty last segment).
  return at === path.length + 1 ? params ?? {} : undefined;
}

function allowHeader(methods: string[]): string {
  const allowed = new Set(methods);
  if (allowed.has("GET")) allowed.add("HEAD");
  allowed.add("OPTIONS");
  const order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
  return [...allowed].sort((a, b) => order.indexOf(a) - order.indexOf(b)).join(", ");
}
