/**
 * A `Request` for the app, built lazily from a node:http request. Constructing a full WHATWG
 * Request (headers copied into a Headers object, body wrapped in a web stream) costs more than
 * the rest of a typical request here, and most requests only need the method, URL and two or
 * three headers. This class gives exactly those cheaply and builds the real Request only if a
 * caller asks for something else (`text()`, `json()`, `clone()`, ...).
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** Read-only view of node's header object with the `Headers` methods the app uses. */
class NodeHeaders {
  constructor(private readonly raw: IncomingMessage["headers"]) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  }

  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const name in this.raw) callback(this.get(name)!, name);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name in this.raw) yield [name, this.get(name)!];
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/**
 * The request's URL, from its target alone (RFC 9112 §3.2): an origin-form target (`/path?q`)
 * under `localhost`, an absolute-form one (`http://host/path`, §3.2.2) as it came, and `*` as
 * the path `/*` (as Deno gives it). The Host header takes no part: it may hold anything, `/` and
 * `?` included, and must never change the path (the app reads only path and query). Plain
 * concatenation: the app splits this string itself, so no URL object is built.
 */
function urlOfTarget(incoming: IncomingMessage): string {
  const target = incoming.url ?? "/";
  // A TLS socket has `encrypted` set (node:tls), a plain one has not.
  const origin = (incoming.socket as { encrypted?: boolean }).encrypted
    ? "https://localhost"
    : "http://localhost";
  if (target.charCodeAt(0) === 0x2f /* "/" */) return origin + target;
  return target.includes("://") ? target : `${origin}/${target}`;
}

/** The parts of `Request` the app reads, each computed on first use. */
export class NodeRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: NodeHeaders;
  #incoming: IncomingMessage;
  #outgoing: ServerResponse;
  #abort: AbortController | undefined;
  #body: ReadableStream<Uint8Array> | null | undefined;
  #request: Request | undefined;

  constructor(incoming: IncomingMessage, outgoing: ServerResponse) {
    this.#incoming = incoming;
    this.#outgoing = outgoing;
    this.method = incoming.method ?? "GET";
    this.url = urlOfTarget(incoming);
    this.headers = new NodeHeaders(incoming.headers);
  }

  /**
   * Aborted when the client goes away before the response is written. Created on first use:
   * on Node 20 an AbortController plus a `close` listener cost about 7% of a list request
   * (AbortSignal is made transferable at construction), and the app never reads the signal.
   */
  get signal(): AbortSignal {
    if (this.#abort === undefined) {
      const abort = new AbortController();
      const outgoing = this.#outgoing;
      const onClose = () => {
        if (!outgoing.writableFinished) abort.abort();
      };
      // `destroyed` is set when the response has closed; a close before the first use of the
      // signal must still abort it.
      if (outgoing.destroyed) onClose();
      else outgoing.once("close", onClose);
      this.#abort = abort;
    }
    return this.#abort.signal;
  }

  /** The request body as a web stream; null for GET and HEAD. */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body === undefined) {
      const hasBody = this.method !== "GET" && this.method !== "HEAD";
      this.#body = hasBody ? bodyStream(this.#incoming) : null;
    }
    return this.#body;
  }

  /** The full Request, for anything beyond the fast path. */
  toRequest(): Request {
    this.#request ??= new Request(this.url, {
      method: this.method,
      headers: new Headers([...this.headers]),
      body: this.body,
      signal: this.signal,
      // @ts-ignore: `duplex` is required by undici for streamed bodies but missing from lib.dom.
      duplex: "half",
    });
    return this.#request;
  }

  text(): Promise<string> {
    return this.toRequest().text();
  }

  json(): Promise<unknown> {
    return this.toRequest().json();
  }

  /**
   * The whole body, read straight from `incoming` (no web stream, no full Request): the app's
   * path for a body with a Content-Length, which node's parser holds to exactly that many bytes.
   * Still bounded by it, in case a body arrives without one.
   */
  async arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#request !== undefined || this.#body !== undefined) {
      return this.toRequest().arrayBuffer();
    }
    this.#body = null; // the body is being used: `body` and `toRequest()` see it as taken
    const declared = Number(this.#incoming.headers["content-length"] ?? Infinity);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of this.#incoming as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > declared) throw new RangeError("Request body is longer than its Content-Length");
      chunks.push(chunk);
    }
    const bytes = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return bytes.buffer;
  }

  clone(): Request {
    return this.toRequest().clone();
  }
}

/**
 * The body as a web stream that reads `incoming` one chunk per `read()` of the consumer.
 *
 * Replaces `Readable.toWeb(incoming)`, which on Node 20 starts reading as soon as it is created
 * (up to 16 KB ahead of the consumer), copies every chunk (`new Uint8Array(chunk)`) and sets up
 * `finished()` bookkeeping per request. Here nothing is read until the handler asks
 * (`highWaterMark: 0`), and a chunk is handed over as it came: the HTTP parser gives each body
 * chunk its own buffer, and a Buffer is a Uint8Array. End, errors and a client abort (a premature
 * close) come through node's async iterator of `incoming`.
 */
function bodyStream(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  let chunks: AsyncIterator<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // `destroyOnReturn: false`: a cancel leaves `incoming` readable (see `cancel`).
      chunks ??= incoming.iterator({ destroyOnReturn: false });
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      // The 413 path: the app stops reading. Ending the iterator only detaches it; `incoming`
      // stays open so that the adapter can drop the rest of the body after the answer instead of
      // closing a connection with unread data on it (see ./unread_body.ts). Destroying it here
      // would stop the socket being read, and destroying the socket would lose the answer.
      await chunks?.return?.();
    },
  }, { highWaterMark: 0 });
}
