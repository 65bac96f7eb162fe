/**
 * Writing a fetch `Response` to a node:http response: headers in one `writeHead`, the body
 * streamed chunk by chunk with backpressure. Errors and client aborts end the exchange quietly;
 * nothing escapes to crash the process.
 */
import type { ServerResponse } from "node:http";

/** Sends `response` on `outgoing`; resolves when it is written or the client went away. */
export async function writeResponse(response: Response, outgoing: ServerResponse): Promise<void> {
  const headers: string[] = [];
  response.headers.forEach((value, name) => {
    if (name === "set-cookie") return;
    headers.push(name, value);
  });
  for (const cookie of response.headers.getSetCookie()) headers.push("set-cookie", cookie);
  outgoing.writeHead(response.status, response.statusText || undefined, headers);

  if (response.body === null) {
    outgoing.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    // Hold one chunk back, so a single-chunk body (every JSON answer here) goes out with
    // `end(chunk)`: headers and body leave in one write instead of two.
    let pending = await reader.read();
    for (;;) {
      if (pending.done || outgoing.destroyed) break;
      const next = await reader.read();
      if (next.done) {
        outgoing.end(pending.value);
        return;
      }
      if (!outgoing.write(pending.value)) await drained(outgoing);
      pending = next;
    }
    outgoing.end();
  } catch {
    outgoing.destroy();
  } finally {
    reader.cancel().catch(() => {});
  }
}

function drained(outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off("drain", done);
      outgoing.off("close", done);
      resolve();
    };
    outgoing.on("drain", done);
    outgoing.on("close", done);
  });
}
