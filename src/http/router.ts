/** Routes as data, matched by path first so the caller answers 404, 405, OPTIONS and HEAD. */

type Handler<Context, Result = unknown> = (context: Context) => Promise<Result> | Result;

type AnyOptions = Readonly<Record<string, unknown>>;

/** One route: a method and a pattern such as `/pets/:petId`. */
export interface Route<Context, Result = unknown, Options extends object = AnyOptions> {
  readonly method: string;
  readonly pattern: string;
  readonly handler: Handler<Context, Result>;
  /** The path's declaration (one route of the path gives it). */
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

/** Matches request paths against a table of routes; a literal path wins over a pattern. */
export class Router<Context, Result = unknown, Options extends object = AnyOptions> {
  /** Literal paths by length: comparing a few beats hashing the request's new string. */
  private readonly literals = new Map<number, PathMatch<Context, Result, Options>[]>();
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
      // One shape for every match, literal or not: the app's reads of it stay monomorphic.
      const path = { pattern, params: NO_PARAMS, options, handlers, allow };
      if (!segments.some((segment) => PARAM.test(segment))) {
        const sameLength = this.literals.get(pattern.length);
        if (sameLength === undefined) this.literals.set(pattern.length, [path]);
        else sameLength.push(path);
      } else {
        const parsed = segments.map((segment) => ({
          literal: segment,
          param: PARAM.test(segment) ? segment.slice(1) : undefined,
        }));
        this.patterns.push({ segments: parsed, path });
      }
    }
  }

  match(path: string): PathMatch<Context, Result, Options> | undefined {
    const sameLength = this.literals.get(path.length);
    if (sameLength !== undefined) {
      for (const literal of sameLength) if (literal.pattern === path) return literal;
    }
    if (path.charCodeAt(0) !== 0x2f /* / */) return undefined;
    for (const candidate of this.patterns) {
      const params = matchSegments(candidate.segments, path);
      if (params !== undefined) {
        const { pattern, options, handlers, allow } = candidate.path;
        return { pattern, params, options, handlers, allow };
      }
    }
    return undefined;
  }
}

/**
 * The params of `path` (starting with `/`) if it matches the pattern, walked in place without a
 * split (a hot path). An empty segment (`//`, a trailing `/`) matches nothing.
 */
function matchSegments(
  pattern: readonly Segment[],
  path: string,
): Record<string, string> | undefined {
  let params: Record<string, string> | undefined;
  let at = 1;
  for (const { literal, param } of pattern) {
    if (at >= path.length) return undefined;
    let end = path.indexOf("/", at);
    if (end === -1) end = path.length;
    if (end === at) return undefined;
    if (param !== undefined) {
      params ??= {};
      params[param] = path.slice(at, end);
    } else if (literal.length !== end - at || !path.startsWith(literal, at)) {
      return undefined;
    }
    at = end + 1;
  }
  // Past the end exactly: no segment left over, and no trailing `/` (an empty last segment).
  return at === path.length + 1 ? params ?? {} : undefined;
}

/** A pattern's segment: a literal to equal, or a param's name to capture. */
type Segment = { readonly literal: string; readonly param: string | undefined };
