/** CORS (docs/api.md), off unless `CORS_ORIGINS` is set; a preflight needs no key. */
import type { AppRequest } from "../runtime/contract.ts";

/** Response headers browser code may read (CORS-safelisted ones need not be listed). */
export const EXPOSED_HEADERS = "Link, Location, Deprecation, Sunset, Retry-After, X-Request-Id, " +
  "Idempotent-Replayed, RateLimit, RateLimit-Policy, ETag";

/** Request headers a browser may send cross-origin. */
export const ALLOWED_HEADERS =
  "Authorization, Content-Type, Idempotency-Key, X-Request-Id, If-None-Match";

/** The policy of `CORS_ORIGINS` (`["*"]` for any origin). */
export class CorsPolicy {
  readonly #anyOrigin: boolean;
  readonly #origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.#anyOrigin = origins.includes("*");
    this.#origins = new Set(origins);
  }

  #allowOrigin(origin: string | null): string | undefined {
    if (this.#anyOrigin) return "*";
    return origin !== null && this.#origins.has(origin) ? origin : undefined;
  }

  /** Adds the CORS headers of an actual (non-preflight) response, errors included. */
  decorate(origin: string | null, headers: Record<string, string>): void {
    // The answer depends on Origin unless every origin gets `*`: tell caches (RFC 9110 §12.5.5).
    if (!this.#anyOrigin) {
      headers.vary = headers.vary === undefined ? "Origin" : `${headers.vary}, Origin`;
    }
    const allowed = this.#allowOrigin(origin);
    if (allowed === undefined) return;
    headers["access-control-allow-origin"] = allowed;
    headers["access-control-expose-headers"] = EXPOSED_HEADERS;
  }

  /** Adds the preflight headers for an allowed origin (`allow`: the path's methods). */
  preflight(request: AppRequest, allow: string, headers: Record<string, string>): void {
    if (request.headers.get("access-control-request-method") === null) return;
    if (this.#allowOrigin(request.headers.get("origin")) === undefined) return;
    headers["access-control-allow-methods"] = allow;
    headers["access-control-allow-headers"] = ALLOWED_HEADERS;
    headers["access-control-max-age"] = "600"; // seconds; Chromium caps it at 7200
  }
}

/** The policy for the configured origins, or undefined when CORS is off. */
export function corsPolicyFor(origins: readonly string[]): CorsPolicy | undefined {
  return origins.length === 0 ? undefined : new CorsPolicy(origins);
}
