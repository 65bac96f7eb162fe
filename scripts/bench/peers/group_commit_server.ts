/**
 * The minimal group-commit peer for durable `POST /v1/pets`: a bare fetch handler with the same
 * auth and TypeBox check as the other peers, that queues each valid create and answers 201 only
 * after its batch was appended to `DATA_DIR/pets.jsonl` with one write and one fdatasync
 * (`group_commit.ts`). No idempotency keys, no index, no cut-back of a failed batch, no log line
 * or contract headers: the floor that our writer, which keeps all of those, is measured
 * against. Dev-only benchmark peer.
 */
import { openGroupCommit, serveFetch } from "./group_commit.ts";
import { isAuthorized, isNewPet, UNAUTHORIZED_BODY } from "./pet_fixture.ts";

const append = await openGroupCommit();
const json = { "content-type": "application/json" };
let nextId = 1;

async function handle(request: Request): Promise<Response> {
  if (!isAuthorized(request.headers.get("authorization"))) {
    return new Response(UNAUTHORIZED_BODY, { status: 401, headers: json });
  }
  if (request.method !== "POST") return new Response(null, { status: 405 });
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return new Response('{"code":"invalid_body","message":"Malformed JSON","status":400}', {
      status: 400,
      headers: json,
    });
  }
  if (!isNewPet(body)) {
    return new Response('{"code":"validation_failed","message":"Invalid","status":400}', {
      status: 400,
      headers: json,
    });
  }
  const text = JSON.stringify({ id: nextId++, ...body });
  return await append(text + "\n")
    ? new Response(text, { status: 201, headers: json })
    : new Response('{"code":"unavailable","message":"Write failed","status":503}', {
      status: 503,
      headers: json,
    });
}

await serveFetch(handle);
