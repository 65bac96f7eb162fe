/**
 * Durable `POST /v1/pets` by group commit on the runtime's bare fetch server: each create waits
 * for its batch's one write and one fdatasync to `DATA_DIR/pets.jsonl` (the next batch gathers
 * meanwhile). `PEER=as-is`: the key and TypeBox check, nothing more: the floor our writer is
 * measured against. `PEER=same-work`: also our contract's duties (the request id, 415, 413,
 * `Location`, the headers, a log line). Neither keeps idempotency keys, an index or a cut-back.
 */
import { open } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import {
  acceptedKey,
  createRequestLog,
  durationSince,
  isAuthorized,
  isNewPet,
  NO_STORE,
  NOSNIFF,
  pathOf,
  requestIdFor,
  serveFetch,
  UNAUTHORIZED_BODY,
  VARIANT,
} from "./fixture.ts";

const file = await open(join(process.env.DATA_DIR ?? ".", "pets.jsonl"), "a");
const encoder = new TextEncoder();
let queue: { line: string; done: (ok: boolean) => void }[] = [];
let writing = false;
let nextId = 1;

async function flush(): Promise<void> {
  writing = true;
  while (queue.length > 0) {
    const batch = queue;
    queue = [];
    let ok = true;
    try {
      await file.write(encoder.encode(batch.map((waiting) => waiting.line).join("")));
      await file.datasync();
    } catch {
      ok = false;
    }
    for (const waiting of batch) waiting.done(ok);
  }
  writing = false;
}

/** Resolves true once `line` is durably on disk. */
const append = (line: string) =>
  new Promise<boolean>((done) => {
    queue.push({ line, done });
    if (!writing) void flush();
  });

const json = { "content-type": "application/json" };
const answer = (status: number, text: string) => new Response(text, { status, headers: json });

async function asIs(request: Request): Promise<Response> {
  if (!isAuthorized(request.headers.get("authorization"))) return answer(401, UNAUTHORIZED_BODY);
  if (request.method !== "POST") return new Response(null, { status: 405 });
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return answer(400, '{"code":"invalid_body","message":"Malformed JSON","status":400}');
  }
  if (!isNewPet(body)) {
    return answer(400, '{"code":"validation_failed","message":"Invalid","status":400}');
  }
  const text = JSON.stringify({ id: nextId++, ...body });
  return await append(text + "\n")
    ? answer(201, text)
    : answer(503, '{"code":"unavailable","message":"Write failed","status":503}');
}

const log = createRequestLog();

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
  if (Number(request.headers.get("content-length") ?? 0) > 65536) {
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

async function sameWork(request: Request): Promise<Response> {
  const started = performance.now();
  const requestId = requestIdFor(request.headers.get("x-request-id"));
  const key = acceptedKey(request.headers.get("authorization"));
  const response = await create(request, requestId, key);
  const { method, url } = request;
  const durationMs = durationSince(started);
  log({ method, path: pathOf(url), status: response.status, durationMs, requestId, key });
  return response;
}

await serveFetch(VARIANT === "same-work" ? sameWork : asIs);
