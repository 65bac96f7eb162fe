/**
 * Talking HTTP/1.1 to a service over a raw socket, for what `fetch` cannot do: send only a head
 * that announces a body, stream a body without end, send a head a byte at a time, or see a
 * connection closed without an answer.
 */
import { Buffer } from "node:buffer";
import { connect } from "node:net";

/** A response read off a raw socket: status, lower-case headers and the body text. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** One whole response at the start of `data`, framed by its Content-Length; undefined until then. */
export function parseRawResponse(data: Buffer): RawResponse | undefined {
  return parseFramedResponse(data)?.response;
}

/** Every whole response at the start of `data`, one after the other (pipelined answers). */
export function parseRawResponses(data: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  for (let rest = data;;) {
    const framed = parseFramedResponse(rest);
    if (framed === undefined) return responses;
    responses.push(framed.response);
    rest = rest.subarray(framed.length);
  }
}

/** The response at the start of `data` and how many bytes it takes; undefined until it is whole. */
export function parseFramedResponse(
  data: Buffer,
): { response: RawResponse; length: number } | undefined {
  const end = data.indexOf("\r\n\r\n");
  if (end === -1) return undefined;
  const [statusLine, ...lines] = data.subarray(0, end).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = data.subarray(end + 4);
  const length = Number(headers["content-length"]);
  // Every JSON answer here has a Content-Length; one without would wait for the close.
  if (Number.isNaN(length) || body.byteLength < length) return undefined;
  const status = Number(statusLine.split(" ")[1]);
  return {
    response: { status, headers, body: body.subarray(0, length).toString("utf8") },
    length: end + 4 + length,
  };
}

/**
 * Sends `head` (a request line and headers, and the body it announces if any: bytes as they are,
 * or text as UTF-8) on a fresh connection and reads one response, framed by its Content-Length;
 * the socket is closed after it.
 */
export function rawExchange(port: number, head: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let data = Buffer.alloc(0);
    const timer = setTimeout(
      () => fail(new Error(`no response to: ${head.toString("latin1").split("\r\n")[0]}`)),
      10_000,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    socket.on("data", (chunk) => {
      data = Buffer.concat([data, chunk]);
      const response = parseRawResponse(data);
      if (response === undefined) return;
      clearTimeout(timer);
      socket.destroy();
      resolve(response);
    });
    socket.on("error", fail);
    socket.on("close", () => fail(new Error(`closed before a whole response: ${data}`)));
    socket.write(head);
  });
}

/**
 * Sends `head`, then streams `bodyBytes` of body (chunked, or as announced by the head's
 * Content-Length) in 64 KiB writes as fast as the socket takes them, reading all the while.
 * Resolves with the response once it is whole and the client has gone on sending for
 * `sendingAfterMs` more (or has sent it all) with the connection intact; rejects when the
 * connection fails before that. A server that closes while the body is still arriving resets the
 * connection (RFC 9112 §9.6), and a client can then lose the answer; the extra time makes a
 * reset right after the answer fail every time, not only when it happens to win the race.
 * With `paceMs`, one 64 KiB write goes out every `paceMs` instead (a client that keeps sending
 * without flooding the machine).
 */
export function streamingExchange(
  port: number,
  head: string,
  options: { bodyBytes: number; chunked: boolean; sendingAfterMs: number; paceMs?: number },
): Promise<RawResponse> {
  const chunk = Buffer.alloc(64 * 1024, "x");
  const frame = options.chunked
    ? Buffer.concat([Buffer.from(`10000\r\n`), chunk, Buffer.from("\r\n")])
    : chunk;
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let data = Buffer.alloc(0);
    let response: RawResponse | undefined;
    let sent = 0;
    let allSent = false;
    let settled = false;
    let paceTimer: ReturnType<typeof setTimeout> | undefined;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(paceTimer);
      socket.destroy();
      outcome();
    };
    const succeed = () => settle(() => resolve(response!));
    const timer = setTimeout(
      () => settle(() => reject(new Error(`no response after ${sent} bytes of body`))),
      10_000,
    );
    const pump = () => {
      while (!settled && sent < options.bodyBytes) {
        sent += chunk.byteLength;
        if (!socket.write(frame)) return void socket.once("drain", pump);
        if (options.paceMs !== undefined) {
          return void (paceTimer = setTimeout(pump, options.paceMs));
        }
      }
      if (settled) return;
      socket.write(options.chunked ? "0\r\n\r\n" : "", () => {
        allSent = true;
        if (response !== undefined) succeed();
      });
    };
    socket.on("data", (more) => {
      if (response !== undefined) return;
      data = Buffer.concat([data, more]);
      response = parseRawResponse(data);
      if (response === undefined) return;
      if (allSent) succeed();
      else setTimeout(succeed, options.sendingAfterMs);
    });
    const lost = (why: string) => {
      const answer = response === undefined ? "before a response" : `after a ${response.status}`;
      settle(() => reject(new Error(`${why} ${answer}, ${sent} bytes of body sent`)));
    };
    socket.on("error", (error) => lost(`connection failed (${error.message})`));
    socket.on("close", () => lost("connection closed"));
    socket.write(head);
    pump();
  });
}

/**
 * Sends `chunks` on a fresh connection, `gapMs` apart, and resolves with the status line of
 * whatever answer comes, "closed" when the connection ends without one, or "no answer" when
 * neither happens within `timeoutMs`. Never rejects: a refusal by closing is an outcome the
 * caller checks.
 */
export function rawStatusLine(
  port: number,
  chunks: string[],
  options: { gapMs?: number; timeoutMs?: number } = {},
): Promise<string> {
  const gapMs = options.gapMs ?? 0;
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let data = "";
    let done = false;
    const finish = (outcome?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome ?? (data === "" ? "closed" : data.slice(0, data.indexOf("\r\n"))));
    };
    const timer = setTimeout(() => finish("no answer"), options.timeoutMs ?? 30_000);
    socket.on("data", (chunk) => (data += chunk));
    socket.on("error", () => finish());
    socket.on("close", () => finish());
    (async () => {
      for (const chunk of chunks) {
        if (done || socket.destroyed) return;
        socket.write(chunk);
        if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
      }
    })();
  });
}

/** What came back on one connection for requests sent back to back (see `pipelinedExchange`). */
export interface PipelinedOutcome {
  /** The whole responses received, in the order they came. */
  readonly responses: RawResponse[];
  /** How it ended: every answer came, the server closed the connection, or neither in time. */
  readonly end: "answered" | "closed" | "timed out";
}

/**
 * Sends `requests` (each a whole request, head and body) on one fresh connection without waiting
 * for any answer: all in one write, or with `gapMs` one write per request that far apart. Resolves
 * once there are as many whole responses as requests, when the server closes the connection, or
 * after `timeoutMs`; never rejects.
 */
export function pipelinedExchange(
  port: number,
  requests: string[],
  options: { gapMs?: number; timeoutMs: number },
): Promise<PipelinedOutcome> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (end: PipelinedOutcome["end"]) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseRawResponses(data), end });
    };
    const timer = setTimeout(() => finish("timed out"), options.timeoutMs);
    socket.on("data", (chunk) => {
      data = Buffer.concat([data, chunk]);
      if (parseRawResponses(data).length >= requests.length) finish("answered");
    });
    socket.on("error", () => finish("closed"));
    socket.on("close", () => finish("closed"));
    (async () => {
      if (options.gapMs === undefined) return void socket.write(requests.join(""));
      for (const request of requests) {
        if (settled) return;
        socket.write(request);
        await new Promise((wait) => setTimeout(wait, options.gapMs));
      }
    })();
  });
}

/** One kept-alive connection that carries raw requests one at a time (see `openRawConnection`). */
export interface RawConnection {
  /** Sends `request` (whole) and resolves with its answer; rejects after `timeoutMs` or a close. */
  request(request: string, timeoutMs?: number): Promise<RawResponse>;
  close(): void;
}

/** Opens a connection for `RawConnection.request`, resolving once it is established. */
export function openRawConnection(port: number): Promise<RawConnection> {
  return new Promise((resolveOpen, rejectOpen) => {
    const socket = connect(port, "127.0.0.1");
    let data = Buffer.alloc(0);
    let waiting:
      | { resolve: (response: RawResponse) => void; reject: (error: Error) => void }
      | undefined;
    const fail = (error: Error) => {
      const pending = waiting;
      waiting = undefined;
      pending?.reject(error);
    };
    socket.on("data", (chunk) => {
      data = Buffer.concat([data, chunk]);
      const framed = parseFramedResponse(data);
      if (framed === undefined || waiting === undefined) return;
      data = data.subarray(framed.length);
      const pending = waiting;
      waiting = undefined;
      pending.resolve(framed.response);
    });
    socket.on("error", (error) => fail(error));
    socket.on("close", () => fail(new Error("the connection closed")));
    socket.once("error", rejectOpen);
    socket.once("connect", () => {
      socket.off("error", rejectOpen);
      resolveOpen({
        request(request, timeoutMs = 5_000) {
          if (socket.destroyed) return Promise.reject(new Error("the connection closed"));
          return new Promise((resolve, reject) => {
            const timer = setTimeout(() => fail(new Error("no answer in time")), timeoutMs);
            waiting = {
              resolve: (response) => (clearTimeout(timer), resolve(response)),
              reject: (error) => (clearTimeout(timer), reject(error)),
            };
            socket.write(request);
          });
        },
        close: () => socket.destroy(),
      });
    });
  });
}
