/**
 * What both group-commit peers share: the queue that appends each batch of lines to
 * `DATA_DIR/pets.jsonl` with one write and one fdatasync before anyone in it is answered (while
 * a batch is being written the next one gathers), and a bare fetch-handler server on each
 * runtime (`Bun.serve`, `Deno.serve`, or a `node:http` bridge that builds a `Request`).
 * Dev-only benchmark code.
 */
import { open } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { listenAddress } from "./pet_fixture.ts";

declare const Bun: { serve(options: object): unknown } | undefined;
declare const Deno:
  | { serve(options: object, handler: unknown): unknown }
  | undefined;

interface Waiting {
  readonly line: string;
  readonly done: (ok: boolean) => void;
}

/** Opens the data file; the function it returns resolves true once `line` is durably on disk. */
export async function openGroupCommit(): Promise<(line: string) => Promise<boolean>> {
  const file = await open(join(process.env.DATA_DIR ?? ".", "pets.jsonl"), "a");
  const encoder = new TextEncoder();
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

  return (line) =>
    new Promise<boolean>((done) => {
      queue.push({ line, done });
      if (!writing) void flush();
    });
}

/** Serves `handle` on `HOST`:`PORT` with the runtime's own server. */
export async function serveFetch(handle: (request: Request) => Promise<Response>): Promise<void> {
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
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      response.end(await answer.text());
    }).listen(port, host);
  }
}
