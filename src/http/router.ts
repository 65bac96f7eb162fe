/**
 * A router over routes as data: the path first, then the method, so the caller answers 404, 405,
 * OPTIONS and HEAD in one place and can decorate every response of a path. What a route declares
 * beside its handler (`options`) is the caller's: the router hands it back with a match.
 */

/** A route handler; params come from `:name` segments of the pattern. */
type Handler<Context, Result = unknown> = (context: Context) => Promise<Result> | Result;

/** What a caller declares about a path: no facts at all unless it says which. */
type AnyOptions = Readonly<Record<string, unknown>>;

/** One route: a method and a pattern such as `/pets/:petId`. */
export interface Route<Context, Result = unknown, Options extends object = AnyOptions> {
  readonly method: string;
  readonly pattern: string;
  readonly handler: Handler<Context, Result>;
  /** The path's declaration (one route of the path gives it; the others may leave it out). */
  readonly options?: Options;
}

/** A path that matched: its handlers per method and the captured params. */
export interface PathMatch<Context, Result = unknown, Options extends object = AnyOptions> {
  readonly pattern: string;
  readonly params: Record<string, string>;
  readonly options: Partial<Options>;
  readonly handlers: ReadonlyMap<string, Handler<Context, Result>>;
  /** The `Allow` header value for this path: its methods, plus HEAD and OPTIONS. */
  readonly allow: string;
}

export const NO_PARAMS: Record<string, string> = Object.freeze({});
const METHOD = /^[A-Z]+$/;
const PARAM = /^:[A-Za-z][A-Za-z0-9]*$/;
const LITERAL = /^[A-Za-z0-9._~-]+$/;
const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * Matches request paths against a table of routes. A literal path (no `:param`) is found by one
 * lookup before any pattern, so it wins over a pattern that would also match it.
 */
export class Router<Context, Result = unknown, Options extends object = AnyOptions> {
  /** The match of each literal path, made once (no params). */
  private readonly literals = new Map<string, PathMatch<Context, Result, Options>>();
  private readonly patterns: { segments: Segment[]; path: PathMatch<Context, Result, Options> }[] =
    [];

  /** A malformed pattern or a duplicate route fails here, not per request. */
  constructor(routes: readonly Route<Context, Result, Options>[]) {
    const paths = new Map<
      string,
      {
        segments: string[];
        options: Partial<Options>;
        handlers: Map<string, Handler<Context, Result>>;
      }
    >();
    for (const { method, pattern, handler, options } of routes) {
      if (!METHOD.test(method)) throw new Error(`Invalid route method: ${method}`);
      if (method === "HEAD" || method === "OPTIONS") {
        throw new Error(`Route ${pattern}: HEAD and OPTIONS are answered by the router`);
      }
      const segments = pattern.startsWith("/") ? pattern.split("/").slice(1) : [""];
      if (pattern === "/") segments.length = 0;
      if (!segments.every((segment) => PARAM.test(segment) || LITERAL.test(segment))) {
        throw new Error(`Invalid route pattern: ${pattern}`);
      }
      let path = paths.get(pattern);
      if (path === undefined) {
        path = { segments, options: options ?? {}, handlers: new Map() };
        paths.set(pattern, path);
      }
      if (path.handlers.has(method)) throw new Error(`Duplicate route: ${method} ${pattern}`);
      path.handlers.set(method, handler);
    }
    for (const [pattern, { segments, options, handlers }] of paths) {
      const allowed = new Set([...handlers.keys(), "OPTIONS"]);
      if (allowed.has("GET")) allowed.add("HEAD");
      const allow = [...allowed]
        .sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b)).join(", ");
      const path = { pattern, params: NO_PARAMS, options, handlers, allow };
      if (!segments.some((segment) => PARAM.test(segment))) {
        this.literals.set(pattern, path);
      } else {
        const parsed = segments.map((segment) => ({
          literal: segment,
          param: PARAM.test(segment) ? segment.slice(1) : undefined,
        }));
        this.patterns.push({ segments: parsed, path });
      }
    }
  }

  /** Finds the path a request path names, or undefined (a 404). */
  match(path: string): PathMatch<Context, Result, Options> | undefined {
    const literal = this.literals.get(path);
    if (literal !== undefined) return literal;
    if (!path.startsWith("/")) return undefined;
    const segments = path.slice(1).split("/");
    for (const candidate of this.patterns) {
      const params = matchSegments(candidate.segments, segments);
      if (params !== undefined) {
        const { pattern, options, handlers, allow } = candidate.path;
        return { pattern, params, options, handlers, allow };
      }
    }
    return undefined;
  }
}

/**
 * The params of a path's segments if they match the pattern's. An empty segment (`//`, a trailing
 * `/`) matches nothing.
 */
function matchSegments(
  pattern: readonly Segment[],
  segments: readonly string[],
): Record<string, string> | undefined {
  if (segments.length !== pattern.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const { literal, param } = pattern[i];
    const segment = segments[i];
    if (segment === "") return undefined;
    if (param !== undefined) params[param] = segment;
    else if (segment !== literal) return undefined;
  }
  return params;
}

/** A pattern's segment: a literal to equal, or the name of a param (`:name`) to capture. */
interface Segment {
  readonly literal: string;
  readonly param: string | undefined;
}
