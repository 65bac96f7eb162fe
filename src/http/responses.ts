/** Building JSON responses from text that is already JSON (pets are kept as exact JSON). */

/** A response whose body is the given JSON text. */
export function jsonResponse(
  json: string,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json");
  return new Response(json, { status: init.status ?? 200, headers });
}
