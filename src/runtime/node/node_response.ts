/**
 * A light `Response` for the Node adapter (as h3js/srvx's NodeResponse). On Node 20 an undici
 * Response, its Headers and the web stream of its body cost about a fifth of a list request, yet
 * `writeResponse` only needs the status, plain headers and the body as it was given. This class
 * keeps exactly those; anything else (`body`, `text()`, `clone()`, …) builds the real Response on
 * first use, from the headers as they are at that moment, and delegates to it.
 */
import type { PlainResponseInit, ReplyBody } from "../../http/responses.ts";

/** `Headers` over a plain object of lower-case names: the methods the app and tests use. */
class PlainHeaders {
  constructor(readonly record: Record<string, string>) {}

  get(name: string): string | null {
    return this.record[name.toLowerCase()] ?? null;
  }

  has(name: string): boolean {
    return this.record[name.toLowerCase()] !== undefined;
  }

  set(name: string, value: string): void {
    this.record[name.toLowerCase()] = String(value);
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const before = this.record[key];
    this.record[key] = before === undefined ? String(value) : `${before}, ${value}`;
  }

  delete(name: string): void {
    delete this.record[name.toLowerCase()];
  }

  getSetCookie(): string[] {
    const cookie = this.record["set-cookie"];
    return cookie === undefined ? [] : [cookie];
  }

  forEach(callback: (value: string, name: string, headers: PlainHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  /** Sorted by name, as `Headers` iterates. */
  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.record).sort()) yield [name, this.record[name]];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/** A Response-compatible object that holds its body as given until someone reads it. */
export class NodeResponse {
  readonly status: number;
  readonly statusText = "";
  readonly headers: PlainHeaders;
  readonly type = "default";
  readonly url = "";
  readonly redirected = false;
  #body: ReplyBody;
  #response: Response | undefined;

  constructor(body: ReplyBody, init: PlainResponseInit) {
    this.status = init.status;
    this.headers = new PlainHeaders(init.headers);
    this.#body = body;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /**
   * The body exactly as given, for `writeResponse`'s one-write path; undefined once the real
   * Response exists (its body may then have been read or be locked).
   */
  get rawBody(): ReplyBody | undefined {
    return this.#response === undefined ? this.#body : undefined;
  }

  /** The plain header object, for `writeHead`. */
  get rawHeaders(): Record<string, string> {
    return this.headers.record;
  }

  /** The real Response, built on first use. */
  toResponse(): Response {
    this.#response ??= new Response(this.#body, {
      status: this.status,
      headers: this.headers.record,
    });
    return this.#response;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.toResponse().body;
  }

  get bodyUsed(): boolean {
    return this.#response?.bodyUsed ?? false;
  }

  text(): Promise<string> {
    return this.toResponse().text();
  }

  json(): Promise<unknown> {
    return this.toResponse().json();
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.toResponse().arrayBuffer();
  }

  blob(): Promise<Blob> {
    return this.toResponse().blob();
  }

  formData(): Promise<FormData> {
    return this.toResponse().formData();
  }

  clone(): Response {
    return this.toResponse().clone();
  }
}
