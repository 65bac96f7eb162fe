/**
 * A `Request` for the app, built lazily from a node:http request. Constructing a full WHATWG
 * Request (headers copied into a Headers object, body wrapped in a web stream) costs more than
 * the rest of a typical request here, and most requests only need the method, URL and two or
 * three headers. This class gives exactly those cheaply and builds the real Request only if a
 * caller asks for something else (`text()`, `json()`, `clone()`, ...).
 */
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";

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

/** The parts of `Request` the app reads, each computed on first use. */
export class NodeRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: NodeHeaders;
  readonly signal: AbortSignal;
  #incoming: IncomingMessage;
  #body: ReadableStream<Uint8Array> | null | undefined;
  #request: Request | undefined;

  constructor(incoming: IncomingMessage, origin: string, signal: AbortSignal) {
    this.#incoming = incoming;
    this.method = incoming.method ?? "GET";
    this.url = origin + (incoming.url ?? "/");
    this.headers = new NodeHeaders(incoming.headers);
    this.signal = signal;
  }

  /** The request body as a web stream; null for GET and HEAD. */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body === undefined) {
      const hasBody = this.method !== "GET" && this.method !== "HEAD";
      this.#body = hasBody ? Readable.toWeb(this.#incoming) as ReadableStream<Uint8Array> : null;
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

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.toRequest().arrayBuffer();
  }

  clone(): Request {
    return this.toRequest().clone();
  }
}
