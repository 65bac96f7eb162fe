/**
 * Writing a fetch `Response` to a node:http response: headers in one `writeHead`, the body
 * streamed chunk by chunk with backpressure. Errors and client aborts end the exchange quietly;
 * nothing escapes to crash the process. The app's own `NodeResponse`s skip all that: their body
 * is already text or bytes, so they go out with one `writeHead` and one `end`.
 */
import { Buffer } from "node:buffer";
import type { ServerResponse } from "node:http";
import { NodeResponse } from "./node_response.ts";

/** Sends `response` on `outgoing`; resolves when it is written or the client went away. */
export async function writeResponse(
  response: Response | NodeResponse,
  outgoing: ServerResponse,
): Promise<void> {
  if (response instanceof NodeResponse) {
    const body = response.rawBody;
    if (body !== undefined) return writeWhole(response.status, response.rawHeaders, body, outgoing);
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
    outgoing.writeHead(response.status, statusText, headers);
    outgoing.end();
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
      outgoing.end(first.value);
      return;
    }
    outgoing.writeHead(response.status, statusText, headers);
    let chunk: ReadableStreamReadResult<Uint8Array> = first;
    while (!chunk.done && !outgoing.destroyed) {
      if (!outgoing.write(chunk.value)) await drained(outgoing);
      chunk = chunk === first ? second : await reader.read();
    }
    finished = chunk.done === true;
    outgoing.end();
  } catch {
    outgoing.destroy();
  } finally {
    // Stops the producer when the client went away or a read failed; a finished body needs no cancel.
    if (!finished) reader.cancel().catch(() => {});
  }
}

/**
 * The fast path: headers and a body held whole, sent with a Content-Length in one write. The
 * header object is the response's own and gains the length it was sent with.
 */
function writeWhole(
  status: number,
  headers: Record<string, string>,
  body: string | Uint8Array | null,
  outgoing: ServerResponse,
): void {
  if (body !== null && headers["content-length"] === undefined) {
    const length = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
    headers["content-length"] = String(length);
  }
  outgoing.writeHead(status, headers);
  if (body === null) outgoing.end();
  else outgoing.end(body);
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
