/**
 * The request the app reads (`AppRequest`), built lazily from a node:http request: a full WHATWG
 * Request (every header copied, the body wrapped in a web stream) would cost more than the rest of
 * a typical request (docs/performance.md, "The levers kept").
 */
import type { IncomingMessage } from "node:http";
import type { AppRequest } from "../contract.ts";

/**
 * The headers node:http keeps only the first of (dropping the others), among those the app reads.
 * Deno, Bun and the fetch `Headers` join every value with ", " instead, and so does `get` here:
 * two `Authorization` headers are then one value that is no `Bearer <key>` on every runtime (a
 * 401), never the first key alone; two content types are no JSON content type (a 415).
 */
const FIRST_KEPT_BY_NODE = new Set(["authorization", "content-type"]);

/** Node's header object, read as the app reads headers. */
class NodeHeaders {
  constructor(
    private readonly raw: IncomingMessage["headers"],
    private readonly rawPairs: readonly string[],
  ) {}

  get(name: string): string | null {
    const lower = name.toLowerCase();
    const value = this.raw[lower];
    if (value === undefined) return null;
    if (Array.isArray(value)) return value.join(", ");
    return FIRST_KEPT_BY_NODE.has(lower) ? this.joined(lower) ?? value : value;
  }

  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }

  /** Every value of header `lower` as sent, joined with ", ", when it came more than once. */
  private joined(lower: string): string | undefined {
    let values: string[] | undefined;
    let first: string | undefined;
    for (let at = 0; at < this.rawPairs.length; at += 2) {
      const rawName = this.rawPairs[at];
      if (rawName.length !== lower.length || rawName.toLowerCase() !== lower) continue;
      if (first === undefined) first = this.rawPairs[at + 1];
      else (values ??= [first]).push(this.rawPairs[at + 1]);
    }
    return values?.join(", ");
  }
}

/**
 * The request's URL: its target alone (RFC 9112 §3.2), origin-form (`/path?q`) or absolute-form
 * (`http://host/path`, §3.2.2) as it came, and `*` as the path `/*` (as Deno gives it). The Host
 * header takes no part: it may hold anything, `/` and `?` included, and must never change the
 * path. The app reads only path and query, and splits either form itself.
 */
function urlOfTarget(target: string): string {
  if (target.charCodeAt(0) === 0x2f /* "/" */ || target.includes("://")) return target;
  return `/${target}`;
}

/** The parts of a request the app reads, each computed on first use. */
export class NodeRequest implements AppRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: NodeHeaders;
  #incoming: IncomingMessage;
  /** The body as given out: undefined until then, null once read whole by `arrayBuffer()`. */
  #body: ReadableStream<Uint8Array> | null | undefined;

  constructor(incoming: IncomingMessage) {
    this.#incoming = incoming;
    this.method = incoming.method ?? "GET";
    this.url = urlOfTarget(incoming.url ?? "/");
    this.headers = new NodeHeaders(incoming.headers, incoming.rawHeaders);
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body === undefined) {
      const hasBody = this.method !== "GET" && this.method !== "HEAD";
      this.#body = hasBody ? bodyStream(this.#incoming) : null;
    }
    return this.#body;
  }

  /**
   * The whole body, read straight from `incoming` (no web stream): the app's path for a body with
   * a Content-Length, which node's parser holds to exactly that many bytes. Still bounded by it,
   * in case a body arrives without one. A body is read once, by this or through `body`.
   */
  async arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#body !== undefined) throw new TypeError("The request body was already read");
    this.#body = null;
    const declared = Number(this.#incoming.headers["content-length"] ?? Infinity);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of this.#incoming) {
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
}

/**
 * The body as a web stream that reads `incoming` one chunk per `read()` of the consumer. Not
 * `Readable.toWeb(incoming)`, which on Node 20 reads up to 16 KB ahead of the consumer and copies
 * every chunk; each chunk here is node's own buffer.
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
      // The 413 path: `incoming` stays open so that the adapter can drop the rest of the body
      // after the answer (./unread_body.ts); destroying it would lose the answer.
      await chunks?.return?.();
    },
  }, { highWaterMark: 0 });
}
