/**
 * Writing a fetch `Response` to a node:http response: headers in one `writeHead`, the body
 * streamed chunk by chunk with backpressure. Errors and client aborts end the exchange quietly;
 * nothing escapes to crash the process. The app's own `NodeResponse`s skip all that: their body
 * is already text or bytes, so they go out with one `writeHead` and one `end`.
 *
 * With `endAfter` (an answer given before the request body was read to its end), the whole
 * response is still sent at once, but `end()` — after which node closes such a connection — waits
 * for that promise: the time the adapter takes to drop the rest of the body (./unread_body.ts).
 */
import { Buffer } from "node:buffer";
import type { ServerResponse } from "node:http";
import { NodeResponse } from "./node_response.ts";

/** Options of `writeResponse`. */
export interface WriteOptions {
  /** The response is ended only once this settles (everything before the end goes out at once). */
  readonly endAfter?: Promise<void>;
}

/** Sends `response` on `outgoing`; resolves when it is written or the client went away. */
export async function writeResponse(
  response: Response | NodeResponse,
  outgoing: ServerResponse,
  options?: WriteOptions,
): Promise<void> {
  const endAfter = options?.endAfter;
  if (response instanceof NodeResponse) {
    const body = response.rawBody;
    if (body !== undefined) {
      writeWhole(response.status, response.rawHeaders, body, outgoing, endAfter === undefined);
      if (endAfter !== undefined) await endLater(outgoing, endAfter);
      return;
    }
    response = response.toResponse();
  }
  const headers: string[] = [];
  let hasCookies = false;
  let hasLength = false;
  response.headers.forEach((value, name) => {
    if (name === "set-cookie") {
      hasCookies = true;
      return;
    }
    if (name === "content-length") hasLength = true;
    headers.push(name, value);
  });
  // Set-Cookie values must stay separate lines; `getSetCookie()` only when there are any.
  if (hasCookies) {
    for (const cookie of response.headers.getSetCookie()) headers.push("set-cookie", cookie);
  }
  const statusText = response.statusText || undefined;

  if (response.body === null) {
    if (endAfter !== undefined && !hasLength && headOnlyNeedsLength(response.status, outgoing)) {
      headers.push("content-length", "0");
    }
    outgoing.writeHead(response.status, statusText, headers);
    if (endAfter === undefined) outgoing.end();
    else await endLater(outgoing, endAfter);
    return;
  }
  const reader = response.body.getReader();
  let finished = false;
  try {
    // Read up to two chunks before `writeHead` (nothing reaches the wire before the first write
    // anyway). When the body turns out to be a single chunk (every JSON answer here), it is sent
    // with a Content-Length in one write together with the headers, instead of chunked framing.
    const first = await reader.read();
    const second = first.done ? first : await reader.read();
    if (second.done) {
      finished = true;
      if (!hasLength) headers.push("content-length", String(first.value?.byteLength ?? 0));
      outgoing.writeHead(response.status, statusText, headers);
      if (endAfter === undefined) outgoing.end(first.value);
      else {
        if (first.value !== undefined) outgoing.write(first.value);
        await endLater(outgoing, endAfter);
      }
      return;
    }
    outgoing.writeHead(response.status, statusText, headers);
    let chunk: ReadableStreamReadResult<Uint8Array> = first;
    while (!chunk.done && !outgoing.destroyed) {
      if (!outgoing.write(chunk.value)) await drained(outgoing);
      chunk = chunk === first ? second : await reader.read();
    }
    finished = chunk.done === true;
    // A chunked body's last chunk goes with the end, so this client waits for `endAfter`; the
    // app's early answers are whole bodies, which take the paths above.
    if (endAfter !== undefined) await endAfter;
    outgoing.end();
  } catch {
    outgoing.destroy();
  } finally {
    // Stops the producer when the client went away or a read failed; a finished body needs no cancel.
    if (!finished) reader.cancel().catch(() => {});
  }
}

/**
 * The fast path: headers and a body held whole, sent with a Content-Length in one write (and
 * the end, unless `end` is false). The header object is the response's own and gains the length
 * it was sent with.
 */
function writeWhole(
  status: number,
  headers: Record<string, string>,
  body: string | Uint8Array | null,
  outgoing: ServerResponse,
  end: boolean,
): void {
  if (headers["content-length"] === undefined) {
    if (body !== null) {
      const length = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
      headers["content-length"] = String(length);
    } else if (!end && headOnlyNeedsLength(status, outgoing)) headers["content-length"] = "0";
  }
  outgoing.writeHead(status, headers);
  if (end) {
    if (body === null) outgoing.end();
    else outgoing.end(body);
  } else if (body !== null) outgoing.write(body);
}

/**
 * Ends the response once `endAfter` settles. What was written goes out now: a head with no body
 * written after it is sent on its own (`flushHeaders` is a no-op once it has gone out).
 */
async function endLater(outgoing: ServerResponse, endAfter: Promise<void>): Promise<void> {
  outgoing.flushHeaders();
  await endAfter;
  outgoing.end();
}

/**
 * Whether a head sent without its end needs `Content-Length: 0` to be a whole response. Without
 * it, node frames a response that may have a body as chunked, and the client would wait for the
 * last chunk, which only the end sends. HEAD, 1xx, 204 and 304 responses have no body at all.
 */
function headOnlyNeedsLength(status: number, outgoing: ServerResponse): boolean {
  return outgoing.req.method !== "HEAD" && status >= 200 && status !== 204 && status !== 304;
}

function drained(outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    // A response closed already emits neither event again: waiting would never end.
    if (outgoing.destroyed) return resolve();
    const done = () => {
      outgoing.off("drain", done);
      outgoing.off("close", done);
      resolve();
    };
    outgoing.on("drain", done);
    outgoing.on("close", done);
  });
}
