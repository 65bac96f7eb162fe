/**
 * The same-work group-commit peer for durable `POST /v1/pets`: the minimal peer's queue (one
 * write and one fdatasync per batch before anyone in it is answered, `group_commit.ts`) behind
 * a careful hand-written fetch handler that also does what our contract asks of each request:
 * the key looked up in a Map, the request-id rule, 415 for a body that is not JSON, 413 for a
 * declared length over 64 KiB, the TypeBox check, `Location`, `Cache-Control: no-store`,
 * `nosniff`, `X-Request-Id`, and one JSON log line per request batched to stdout. Still no
 * idempotency keys, index or cut-back of a failed batch. Dev-only benchmark peer.
 */
import {
  acceptedKey,
  createRequestLog,
  durationSince,
  NO_STORE,
  NOSNIFF,
  pathOf,
  requestIdFor,
} from "./contract_duties.ts";
import { openGroupCommit, serveFetch } from "./group_commit.ts";
import { isNewPet } from "./pet_fixture.ts";

const MAX_BODY_BYTES = 65536;

const append = await openGroupCommit();
const log = createRequestLog();
let nextId = 1;

function error(status: number, code: string, message: string, requestId: string): Response {
  return new Response(JSON.stringify({ code, message, status }), {
    status,
    headers: {
      "content-type": "application/json",
      "cache-control": NO_STORE,
      "x-content-type-options": NOSNIFF,
      "x-request-id": requestId,
    },
  });
}

async function create(request: Request, requestId: string, key: string | undefined) {
  if (key === undefined) {
    const response = error(401, "unauthorized", "Invalid API key", requestId);
    response.headers.set("www-authenticate", 'Bearer realm="animal-store"');
    return response;
  }
  if (request.method !== "POST") return error(405, "method_not_allowed", "POST only", requestId);
  if (!(request.headers.get("content-type") ?? "").startsWith("application/json")) {
    return error(415, "unsupported_media_type", "JSON only", requestId);
  }
  if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) {
    return error(413, "payload_too_large", "Body over 64 KiB", requestId);
  }
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return error(400, "invalid_body", "Malformed JSON", requestId);
  }
  if (!isNewPet(body)) return error(400, "validation_failed", "Invalid NewPet", requestId);
  const id = nextId++;
  const text = JSON.stringify({ id, ...body });
  if (!await append(text + "\n")) return error(503, "unavailable", "Write failed", requestId);
  return new Response(text, {
    status: 201,
    headers: {
      "content-type": "application/json",
      "cache-control": NO_STORE,
      "x-content-type-options": NOSNIFF,
      "x-request-id": requestId,
      location: `/v1/pets/${id}`,
    },
  });
}

async function handle(request: Request): Promise<Response> {
  const started = performance.now();
  const requestId = requestIdFor(request.headers.get("x-request-id"));
  const key = acceptedKey(request.headers.get("authorization"));
  const response = await create(request, requestId, key);
  log({
    method: request.method,
    path: pathOf(request.url),
    status: response.status,
    durationMs: durationSince(started),
    requestId,
    key,
  });
  return response;
}

await serveFetch(handle);
