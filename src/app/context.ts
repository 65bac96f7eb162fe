/** What a handler is given and what a route declares, below both app and routes. */
import type { PetStore } from "../store/store.ts";
import type { ReplyHeaders } from "../http/responses.ts";
import type { AppRequest, Reply } from "../runtime/contract.ts";
import type { Route } from "../http/router.ts";

/** What a handler gets: the request and everything already worked out about it. */
export interface RequestContext {
  readonly request: AppRequest;
  readonly method: string;
  readonly path: string;
  /** Without `?` (may be empty). */
  readonly query: string;
  readonly params: Record<string, string>;
  readonly requestId: string;
  /** Fingerprint of the API key that authenticated the request (empty on public paths). */
  readonly keyScope: string;
  /** The ready store; throws 503 while the store is loading. */
  readonly store: () => PetStore;
  /** The matched path's constant headers by kind: each reply starts from one. */
  readonly headers: ReplyHeaders;
}

/** What a route declares about its path; the app works out its key and headers from it. */
export interface RouteOptions {
  /** No key under BASE_PATH; outside it, only `public: false` asks for one. */
  readonly public?: boolean;
  /** The deprecation headers on every response, and 410 from the sunset on. */
  readonly deprecated?: boolean;
  /** While the store loads, the request waits for it (`LOAD_WAIT_MS`). */
  readonly readsStore?: boolean;
}

export type AppRoute = Route<RequestContext, Reply, RouteOptions>;
