/**
 * Reading a JSON request body within `MAX_BODY_BYTES`, without ever holding more than the limit:
 * a declared `Content-Length` over the limit is refused before reading, and a streamed body is
 * cancelled as soon as it crosses the limit. A read that fails is the client's doing (it went
 * away or was timed out mid-body): `ClientGoneError`, a 499 in the log, never a 500.
 */
import { ClientGoneError, HttpError } from "./errors.ts";
import type { JsonValue } from "../schemas/json_value.ts";
import { parseJsonExact } from "./json.ts";
import { parseJsonBytes } from "./json_bytes.ts";
import type { AppRequest } from "./responses.ts";

/** True for `application/json`, with or without parameters such as `charset=utf-8`. */
export function isJsonContentType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const semicolon = contentType.indexOf(";");
  const mediaType = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim();
  return mediaType.toLowerCase() === "application/json";
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, "payload_too_large", `Request body is larger than ${limit} bytes`);
}

const DECIMAL = /^[0-9]+$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads the body as bytes, refusing more than `limit` of them with 413. */
async function readBytes(request: AppRequest, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  // Only without Transfer-Encoding: with both headers the runtime may frame by chunks, and then
  // Content-Length bounds nothing.
  if (
    declared !== null && DECIMAL.test(declared) && !request.headers.has("transfer-encoding")
  ) {
    // Fast path: with a Content-Length within the limit, HTTP framing delivers exactly that many
    // bytes, so reading it whole is bounded — and native on Bun and Deno, where the stream
    // reader below costs a promise per chunk. The check after is for a Request built in code,
    // whose header nothing enforces.
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > limit) throw tooLarge(limit);
    return bytes;
  }
  if (request.body === null) return new Uint8Array(0);

  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Stop pulling: the rest of an over-size body is never read into memory.
      reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Reads and parses a JSON body: 413 over the limit, 400 `invalid_body` when not JSON.
 *
 * What a failed body read means: the runtimes fail the read when the connection closes or
 * times out before the body's end, each in its own words: Deno with `BadResource` ("Cannot read
 * body as underlying resource unavailable"), Bun with `AbortError` ("The connection was closed",
 * also when its idle timeout cuts a slow client), Node with `Error: aborted` (`ECONNRESET`, also
 * after its own 408 to a slow client); Bun and Node the same way on a malformed chunked body
 * (Deno drops that connection without calling the handler). So every failure is the client's,
 * except a `TypeError` (a body read twice: our bug, which must stay a 500) and the 413 below.
 */
export function readJsonBody(request: AppRequest, limit: number): Promise<JsonValue> {
  // One `then` for both outcomes: the read's failure is mapped here, while a parse error thrown
  // by `parseJsonBody` passes through as it is.
  return readBytes(request, limit).then(parseJsonBody, (error) => {
    if (error instanceof HttpError || error instanceof TypeError) throw error;
    throw new ClientGoneError(error);
  });
}

/**
 * A body's JSON value: parsed from its bytes (`json_bytes.ts`) when it can be, else decoded and
 * parsed as text, which gives every verdict on a body that is not JSON (400 `invalid_body`).
 */
export function parseJsonBody(bytes: Uint8Array): JsonValue {
  return parseJsonBytes(bytes) ?? parseJsonText(bytes);
}

/** The text reader: a fatal UTF-8 decode, then the exact parser of `json.ts`. */
export function parseJsonText(bytes: Uint8Array): JsonValue {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new HttpError(400, "invalid_body", "Cannot parse body: it is not valid UTF-8");
  }
  if (text.trim() === "") {
    throw new HttpError(400, "invalid_body", "Cannot parse body: it is empty");
  }
  const parsed = parseJsonExact(text);
  if (!parsed.ok) {
    throw new HttpError(400, "invalid_body", `Cannot parse body as JSON: ${parsed.reason}`);
  }
  return parsed.value;
}
