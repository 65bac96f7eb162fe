/** The `AppRequest` of a node:http request, made lazily (docs/performance.md "The levers kept"). */
import type { IncomingMessage } from "node:http";
import type { AppRequest } from "../contract.ts";

/**
 * Headers the app reads of which node:http keeps only the first. Deno, Bun and `Headers` join every
 * value with ", ", and so does `get`: two keys are then a 401 everywhere, two content types a 415.
 */
const FIRST_KEPT_BY_NODE = new Set(["authorization", "content-type"]);

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

  /** Every value of header `lower` as sent, joined, when it came more than once. */
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
 * The request's URL: its target alone (RFC 9112 §3.2), origin- or absolute-form as it came, `*` as
 * `/*` (as Deno gives it). The Host may hold anything, `/` and `?` included: it takes no part.
 */
function urlOfTarget(target: string): string {
  if (target.charCodeAt(0) === 0x2f /* "/" */ || target.includes("://")) return target;
  return `/${target}`;
}

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

  /** The whole body, read straight from `incoming`, bounded by its Content-Length; read once. */
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
 * The body as a web stream of node's own buffers, one per `read()`: Node 20's `Readable.toWeb`
 * reads ahead of the consumer and copies every chunk.
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
      // The 413 path: `incoming` stays open for the adapter to drop the rest (./unread_body.ts).
      await chunks?.return?.();
    },
  }, { highWaterMark: 0 });
}
