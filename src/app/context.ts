/**
 * What a route handler is given and what a route declares: the types the app and the routes
 * share. They live here, below both, so that a route never imports the app that assembles it.
 */
import type { PetStore } from "../store/store.ts";
import type { ReplyHeaders } from "../http/responses.ts";
import type { AppRequest, Reply } from "../runtime/contract.ts";
import type { Route } from "../http/router.ts";

/** What a route handler gets: the request and everything already worked out about it. */
export interface RequestContext {
  readonly request: AppRequest;
  readonly method: string;
  readonly path: string;
  /** The raw query string without `?` (may be empty). */
  readonly query: string;
  readonly params: Record<string, string>;
  readonly requestId: string;
  /** Fingerprint of the API key that authenticated the request (empty on public paths). */
  readonly keyScope: string;
  /** The ready store; throws 503 while the store is loading. */
  readonly store: () => PetStore;
  /** The constant headers of the matched path's replies, by kind: each reply starts from one. */
  readonly headers: ReplyHeaders;
}

/** What a route declares about its path; the app works out the rest (key, headers) from it. */
export interface RouteOptions {
  /**
   * Served without an API key (under BASE_PATH, where a key is asked for unless this is true);
   * outside BASE_PATH only `public: false` asks for one.
   */
  readonly public?: boolean;
  /** Deprecated: the deprecation headers on every response, and 410 from the sunset on. */
  readonly deprecated?: boolean;
  /** The handler reads the store: while it loads, the request waits for it (`LOAD_WAIT_MS`). */
  readonly readsStore?: boolean;
}

/** A route of the app: its handler gets a `RequestContext` and returns a `Reply`. */
export type AppRoute = Route<RequestContext, Reply, RouteOptions>;
