/**
 * The minimal group-commit peer for durable `POST /v1/pets`: a bare fetch handler (`Bun.serve`,
 * `Deno.serve`, or `node:http`) with the same auth and TypeBox check as the other peers, that
 * queues each valid create and answers 201 only after its batch was appended to
 * `DATA_DIR/pets.jsonl` with one write and one fdatasync. While a batch is being written the
 * next one gathers. No idempotency keys, no index, no cut-back of a failed batch: the floor that
 * our writer, which keeps all of those, is measured against. Dev-only benchmark peer.
 */
import { open } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { isAuthorized, isNewPet, listenAddress, UNAUTHORIZED_BODY } from "./pet_fixture.ts";

declare const Bun: { serve(options: object): unknown } | undefined;
declare const Deno:
  | { serve(options: object, handler: unknown): unknown }
  | undefined;

const file = await open(join(process.env.DATA_DIR ?? ".", "pets.jsonl"), "a");
const encoder = new TextEncoder();
const json = { "content-type": "application/json" };

interface Waiting {
  readonly line: string;
  readonly done: (ok: boolean) => void;
}

let nextId = 1;
let queue: Waiting[] = [];
let writing = false;

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
  const ok = await new Promise<boolean>((done) => {
    queue.push({ line: text + "\n", done });
    if (!writing) void flush();
  });
  return ok
    ? new Response(text, { status: 201, headers: json })
    : new Response('{"code":"unavailable","message":"Write failed","status":503}', {
      status: 503,
      headers: json,
    });
}

const { port, host } = listenAddress();
if (typeof Bun !== "undefined") {
  Bun.serve({ port, hostname: host, fetch: handle });
} else if (typeof Deno !== "undefined") {
  Deno.serve({ port, hostname: host, onListen() {} }, handle);
} else {
  const { createServer } = await import("node:http");
  createServer(async (request, response) => {
    let text = "";
    for await (const chunk of request) text += chunk;
    const answer = await handle(
      new Request(`http://${host}${request.url}`, {
        method: request.method,
        headers: request.headers as Record<string, string>,
        body: request.method === "POST" ? text : undefined,
      }),
    );
    response.writeHead(answer.status, { "content-type": "application/json" });
    response.end(await answer.text());
  }).listen(port, host);
}
