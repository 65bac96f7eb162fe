/** Request ids: a client's `X-Request-Id` is echoed when it is safe to, otherwise one is made. */

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:=-]{1,200}$/;

/** The id to use for a request, given its `X-Request-Id` header. */
export function requestIdFor(header: string | null): string {
  if (header !== null && CLIENT_REQUEST_ID.test(header)) return header;
  return crypto.randomUUID();
}
