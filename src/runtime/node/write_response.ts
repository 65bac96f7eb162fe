/**
 * Writing a fetch `Response` to a node:http response: headers in one `writeHead`, the body
 * streamed chunk by chunk with backpressure. Errors and client aborts end the exchange quietly;
 * nothing escapes to crash the process.
 */
import type { ServerResponse } from "node:http";

/** Sends `response` on `outgoing`; resolves when it is written or the client went away. */
export async function writeResponse(response: Response, outgoing: ServerResponse): Promise<void> {
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
