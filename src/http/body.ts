/**
 * Reading a JSON request body within `MAX_BODY_BYTES`, never holding more: a `Content-Length`
 * over the limit is refused before reading, and a stream is cancelled as it crosses the limit. A
 * read that fails is the client's doing: `ClientGoneError`, a 499 in the log, never a 500.
 */
import { ClientGoneError, HttpError } from "./errors.ts";
import { ERROR_MESSAGES } from "../schemas/error.ts";
import type { JsonValue } from "../schemas/json_value.ts";
import { parseJson } from "./json.ts";
import type { AppRequest } from "../runtime/contract.ts";

/**
 * Why a create's body cannot be read from its headers alone (a 415), or undefined: the type must
 * be `application/json`, a `charset` only `utf-8`, and no content coding applied (none is decoded,
 * and a gzip body read as JSON would only fail later as a confusing 400).
 */
export function unsupportedBodyReason(
  contentType: string | null,
  contentEncoding: string | null,
): string | undefined {
  // What nearly every create sends, answered without splitting it.
  if (contentType === "application/json" && contentEncoding === null) return undefined;
  if (contentType === null) return ERROR_MESSAGES.notJson;
  const [mediaType, ...parameters] = contentType.split(";");
  if (mediaType.trim().toLowerCase() !== "application/json") return ERROR_MESSAGES.notJson;
  for (const parameter of parameters) {
    const equals = parameter.indexOf("=");
    if (equals === -1 || parameter.slice(0, equals).trim().toLowerCase() !== "charset") continue;
    const charset = unquote(parameter.slice(equals + 1).trim());
    if (charset.toLowerCase() !== "utf-8") {
      return `Content-Type charset must be utf-8, got "${charset.slice(0, 40)}"`;
    }
  }
  if (contentEncoding !== null) {
    const codings = contentEncoding.split(",").map((coding) => coding.trim().toLowerCase());
    if (codings.some((coding) => coding !== "identity" && coding !== "")) {
      return `Content-Encoding "${contentEncoding.slice(0, 40)}" is not supported: ` +
        "send the body uncompressed";
    }
  }
  return undefined;
}

/** A parameter value without its quotes (RFC 9110 §5.6.4), backslash escapes applied. */
function unquote(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value;
  return value.slice(1, -1).replace(/\\(.)/g, "$1");
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, "payload_too_large", ERROR_MESSAGES.bodyTooLarge(limit));
}

const DECIMAL = /^[0-9]+$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads and parses a JSON body: 413 over the limit, 400 `invalid_body` when not JSON. */
export function readJsonBody(request: AppRequest, limit: number): Promise<JsonValue> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  // A Content-Length of digits and no Transfer-Encoding: read in one call, and checked again for a
  // Request built in code, whose header nothing enforces.
  if (declared !== null && DECIMAL.test(declared) && !request.headers.has("transfer-encoding")) {
    return request.arrayBuffer().then((buffer) => {
      if (buffer.byteLength > limit) throw tooLarge(limit);
      return parseJsonBody(new Uint8Array(buffer));
    }, readFailed);
  }
  return readStreamed(request, limit).then(parseJsonBody, readFailed);
}

/**
 * A failed body read (the client closed, timed out or sent a malformed chunked body) is the
 * client's doing, but for our own 413 and a `TypeError` (a body read twice: our bug).
 */
function readFailed(error: unknown): never {
  if (error instanceof HttpError || error instanceof TypeError) throw error;
  throw new ClientGoneError(error);
}

/** The smallest buffer a body is copied into: most bodies fit it whole. */
const FIRST_CAPACITY = 4 * 1024;
/** Deno 2.9's own read size; Deno fails a read into a view of 4 bytes or fewer. */
const READ_SIZE = 64 * 1024;

/**
 * Reads a body with no usable Content-Length into one buffer that grows (doubling) up to `limit`,
 * cancelling the read with 413 as it crosses it. A byte stream reads through one reused buffer of
 * ours: a default reader gets each chunk in a fresh 64 KiB buffer on Deno 2.9, so a body sent one
 * byte per chunk would make garbage faster than the collector frees it (docs/operations.md,
 * "Memory"). Other streams (the Node adapter's body) go chunk by chunk, copying each.
 */
async function readStreamed(request: AppRequest, limit: number): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array(0);
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = request.body.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream: the default reader below.
  }
  const reader = byob ?? request.body.getReader();
  let scratch: Uint8Array | undefined = byob && new Uint8Array(READ_SIZE);
  let buffer = new Uint8Array(0);
  let size = 0;
  for (;;) {
    // A BYOB read takes the buffer and gives it back in `value` (a view of the bytes it filled).
    const { done, value } = byob
      ? await byob.read(scratch!)
      : await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
    if (value === undefined || done) return buffer.subarray(0, size);
    if (byob) scratch = new Uint8Array(value.buffer);
    const needed = size + value.byteLength;
    if (needed > limit) {
      reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    if (needed > buffer.byteLength) {
      const grown = new Uint8Array(
        Math.min(limit, Math.max(needed, 2 * buffer.byteLength, FIRST_CAPACITY)),
      );
      grown.set(buffer.subarray(0, size));
      buffer = grown;
    }
    buffer.set(value, size);
    size = needed;
  }
}

/**
 * A body's JSON value, or 400 `invalid_body` saying why not: a body that is not UTF-8 or is only
 * white space first, then the parser's reason and position.
 */
export function parseJsonBody(bytes: Uint8Array): JsonValue {
  const parsed = parseJson(bytes);
  if (parsed.ok) return parsed.value;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new HttpError(400, "invalid_body", "Cannot parse body: it is not valid UTF-8");
  }
  if (text.trim() === "") {
    throw new HttpError(400, "invalid_body", "Cannot parse body: it is empty");
  }
  throw new HttpError(400, "invalid_body", `Cannot parse body as JSON: ${parsed.reason}`);
}
