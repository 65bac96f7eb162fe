/**
 * Deprecation of `GET /pets/{petId}`: every response carries `Deprecation` (RFC 9745),
 * `Sunset` (RFC 8594) and a `Link` to its successor; from the sunset on, the route answers 410.
 */

/** 2026-01-01T00:00:00Z, the date fixed and documented for v1. */
export const DEPRECATED_AT = Date.UTC(2026, 0, 1);
/** When the route is removed (the seed: 5 December 2030). */
export const SUNSET_AT = Date.UTC(2030, 11, 5);

/** A structured-field date: `@` and Unix seconds. */
export const DEPRECATION_VALUE = `@${DEPRECATED_AT / 1000}`;
export const SUNSET_VALUE = new Date(SUNSET_AT).toUTCString();
export const SUCCESSOR_REL = "successor-version";

/** The three headers of a deprecated path; `successor` is the URL of `GET /pets`. */
export function deprecationHeaders(successor: string): Record<string, string> {
  return {
    deprecation: DEPRECATION_VALUE,
    sunset: SUNSET_VALUE,
    link: `<${successor}>; rel="${SUCCESSOR_REL}"`,
  };
}
