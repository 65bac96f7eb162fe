/**
 * Calling the API of a service process under test: the key, the JSON content type and a
 * deadline added to each request, so a request the service never answers fails the test in
 * seconds instead of holding it until the suite's timeout (and leaking the process).
 */
import type { ServiceProcess } from "./server_process.ts";

/** How long a request may wait for its response, unless it brings its own `signal`. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** A request to the API: `fetch`'s options, plus `duplex` for a streamed body. */
export type ApiInit = RequestInit & { duplex?: "half" };

/** Sends one request to a service's API. */
export type Api = (
  service: Pick<ServiceProcess, "url">,
  path: string,
  init?: ApiInit,
) => Promise<Response>;

/**
 * An `Api` that sends `key` as a Bearer token unless the request has an Authorization header of
 * its own, marks a body as JSON unless the request says otherwise, and gives up after
 * `REQUEST_TIMEOUT_MS` unless the request brings its own `signal`.
 */
export function serviceApi(key: string): Api {
  return (service, path, init = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has("authorization")) headers.set("authorization", `Bearer ${key}`);
    if (init.body !== undefined && init.body !== null && !headers.has("content-type")) {
      headers.set("content-type", "application/json");
    }
    const signal = init.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    return fetch(`${service.url}${path}`, { ...init, headers, signal });
  };
}
