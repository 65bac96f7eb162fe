/**
 * CORS (docs/api.md, CORS): off unless `CORS_ORIGINS` is set. Allowed origins get
 * `Access-Control-Allow-Origin` on every response, errors included, so browser code can read a
 * 401 or a 429 too, and `Access-Control-Expose-Headers` so it can read the contract's headers.
 * A preflight `OPTIONS` on a known path is answered without a key (the Fetch standard's CORS
 * preflight never carries credentials or `Authorization`).
 */
import type { AppRequest } from "../runtime/contract.ts";

/** Response headers browser code may read (Fetch standard: CORS-safelisted ones need not be listed). */
export const EXPOSED_HEADERS = "Link, Location, Deprecation, Sunset, Retry-After, X-Request-Id, " +
  "Idempotent-Replayed, RateLimit, RateLimit-Policy, ETag";

/** Request headers a browser may send cross-origin (docs/api.md, CORS). */
export const ALLOWED_HEADERS =
  "Authorization, Content-Type, Idempotency-Key, X-Request-Id, If-None-Match";

/** The CORS policy of `CORS_ORIGINS`: decorates responses for allowed origins. */
export class CorsPolicy {
  private readonly anyOrigin: boolean;
  private readonly origins: ReadonlySet<string>;

  /** `origins` as `loadConfig` parsed them: `["*"]` for any origin. */
  constructor(origins: readonly string[]) {
    this.anyOrigin = origins.includes("*");
    this.origins = new Set(origins);
  }

  /** The value of `Access-Control-Allow-Origin` for a request's `Origin`, or undefined. */
  allowOrigin(origin: string | null): string | undefined {
    if (this.anyOrigin) return "*";
    if (origin !== null && this.origins.has(origin)) return origin;
    return undefined;
  }

  /** Adds the CORS headers of an actual (non-preflight) response to a reply's `headers`. */
  decorate(origin: string | null, headers: Record<string, string>): void {
    // The answer depends on Origin unless every origin gets `*`: tell caches (RFC 9110 §12.5.5).
    if (!this.anyOrigin) {
      headers.vary = headers.vary === undefined ? "Origin" : `${headers.vary}, Origin`;
    }
    const allowed = this.allowOrigin(origin);
    if (allowed === undefined) return;
    headers["access-control-allow-origin"] = allowed;
    headers["access-control-expose-headers"] = EXPOSED_HEADERS;
  }

  /**
   * Adds the preflight headers when `request` is a CORS preflight from an allowed origin;
   * `allow` is the path's `Allow` value. Other OPTIONS requests get nothing extra.
   */
  preflight(request: AppRequest, allow: string, headers: Record<string, string>): void {
    if (request.headers.get("access-control-request-method") === null) return;
    if (this.allowOrigin(request.headers.get("origin")) === undefined) return;
    headers["access-control-allow-methods"] = allow;
    headers["access-control-allow-headers"] = ALLOWED_HEADERS;
    // Seconds a browser may cache this answer (Chromium caps it at 7200).
    headers["access-control-max-age"] = "600";
  }
}

/** The policy for the configured origins, or undefined when CORS is off. */
export function corsPolicyFor(origins: readonly string[]): CorsPolicy | undefined {
  return origins.length === 0 ? undefined : new CorsPolicy(origins);
}
