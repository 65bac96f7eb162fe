/**
 * A minimal reproduction, with no code of the service: Bun 1.4.5 drops pipelined HTTP/1.1
 * requests behind a response that is not finished when the next request arrives.
 *
 *   bun scripts/repro/bun_pipelining.ts
 *
 * Each case starts a bare `Bun.serve` (or Bun's `node:http`) on 127.0.0.1, sends two or three
 * requests on one connection — in one write, or the next one a little later — and prints the
 * status lines that came back and whether the server closed the connection, e.g.
 *   POST(text, setTimeout 5 ms) + GET, one write   ->  (nothing)  closed
 * A case that is answered in full prints every status line and "open". Each case waits at most
 * 600 ms for its answers. The same file run on Node or Deno tries `node:http` only.
 *
 * What it shows on Bun 1.4.5: every handler whose response completes only after a later turn of
 * the event loop (a timer, a file-system promise such as the fsync a create waits for) loses
 * its own answer and every request behind it when the next request arrives first — whatever the
 * method, however the body is read and whatever the response is. uWS, the HTTP server inside
 * `Bun.serve`, closes the connection when it parses a request while the one before is still
 * pending ("Important for denying async pipelining", packages/bun-uws/src/HttpContext.h), with
 * the pending answer still in its cork buffer. A response finished within the handler or its
 * microtasks is written in time, so such handlers pipeline fine.
 */
import { Buffer } from "node:buffer";
import { promises as fs } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

interface BunServer {
  readonly port: number;
  stop(closeActiveConnections?: boolean): Promise<void>;
}
declare const Bun: {
  readonly version: string;
  serve(options: {
    port: number;
    hostname: string;
    fetch: (request: Request) => Response | Promise<Response>;
  }): BunServer;
} | undefined;

type BodyRead = "text" | "arrayBuffer" | "bytes" | "json" | "getReader" | "not read";
type Delay = "none" | "microtask" | "setTimeout 0" | "setTimeout 5 ms" | "fs promise";
type Answer = "string" | "Uint8Array" | "Content-Length";

interface Handling {
  readonly bodyRead: BodyRead;
  /** The delay before a POST is answered. */
  readonly delay: Delay;
  readonly answer: Answer;
  /** Also delay GETs (to see whether it is POST-specific). */
  readonly delayGets?: boolean;
}

const scratchFile = join(tmpdir(), `bun-pipelining-${process.pid}`);
await fs.writeFile(scratchFile, "x");

async function readBody(request: Request, how: BodyRead): Promise<void> {
  switch (how) {
    case "text":
      return void await request.text();
    case "arrayBuffer":
      return void await request.arrayBuffer();
    case "bytes":
      return void await (request as Request & { bytes(): Promise<Uint8Array> }).bytes();
    case "json":
      return void await request.json();
    case "getReader": {
      const reader = request.body!.getReader();
      while (!(await reader.read()).done);
      return;
    }
    case "not read":
      return;
  }
}

async function wait(delay: Delay): Promise<void> {
  switch (delay) {
    case "none":
      return;
    case "microtask":
      return await Promise.resolve();
    case "setTimeout 0":
      return await new Promise((resolve) => setTimeout(resolve, 0));
    case "setTimeout 5 ms":
      return await new Promise((resolve) => setTimeout(resolve, 5));
    case "fs promise": {
      // What a create does before its 201: append, then fdatasync, on the thread pool.
      const file = await fs.open(scratchFile, "r+");
      try {
        await file.datasync();
      } finally {
        await file.close();
      }
    }
  }
}

function respond(path: string, status: number, answer: Answer): Response {
  const text = `${status} ${path}\n`;
  switch (answer) {
    case "string":
      return new Response(text, { status });
    case "Uint8Array":
      return new Response(new TextEncoder().encode(text), { status });
    case "Content-Length":
      return new Response(text, {
        status,
        headers: { "content-length": String(Buffer.byteLength(text)) },
      });
  }
}

/** A `Bun.serve` fetch handler: POST reads its body, waits and answers 201; GET answers 200. */
function bunHandler(handling: Handling) {
  return async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (request.method === "POST") {
      await readBody(request, handling.bodyRead);
      await wait(handling.delay);
      return respond(path, 201, handling.answer);
    }
    if (handling.delayGets) await wait(handling.delay);
    return respond(path, 200, handling.answer);
  };
}

/** The same for `node:http`: the body read to its end, then the delay. */
function nodeHandler(handling: Handling) {
  return (request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on("end", async () => {
      const post = request.method === "POST";
      if (post || handling.delayGets) await wait(handling.delay);
      const status = post ? 201 : 200;
      const text = `${status} ${request.url}\n`;
      response.writeHead(status, { "content-length": Buffer.byteLength(text) });
      response.end(text);
    });
  };
}

interface Server {
  readonly port: number;
  close(): Promise<void>;
}

async function startServer(kind: "Bun.serve" | "node:http", handling: Handling): Promise<Server> {
  if (kind === "Bun.serve") {
    const server = Bun!.serve({ port: 0, hostname: "127.0.0.1", fetch: bunHandler(handling) });
    return { port: server.port, close: () => server.stop(true) };
  }
  const server = createServer(nodeHandler(handling));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const post = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
  `Content-Length: 2\r\n\r\n{}`;
const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

/**
 * Sends `writes` on one connection, `gapMs` apart (0: all in one write), and resolves with the
 * status lines received and whether the server closed, after `expected` answers, a close, or
 * 600 ms.
 */
function exchange(
  port: number,
  writes: string[],
  options: { gapMs: number; expected: number },
): Promise<{ statusLines: string[]; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let data = "";
    let done = false;
    const statusLines = () =>
      [...data.matchAll(/HTTP\/1\.1 ([^\r]*)\r\n/g)].map((match) => match[1]);
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ statusLines: statusLines(), closed });
    };
    const timer = setTimeout(() => finish(false), 600);
    socket.on("data", (chunk) => {
      data += chunk;
      if (statusLines().length >= options.expected) setTimeout(() => finish(false), 20);
    });
    socket.on("close", () => finish(true));
    socket.on("error", () => finish(true));
    (async () => {
      if (options.gapMs === 0) return void socket.write(writes.join(""));
      for (const write of writes) {
        if (done) return;
        socket.write(write);
        await new Promise((resolve) => setTimeout(resolve, options.gapMs));
      }
    })();
  });
}

interface Case {
  readonly kind: "Bun.serve" | "node:http";
  readonly handling: Handling;
  readonly requests: string[];
  readonly label: string;
  /** Milliseconds between the requests' writes; 0 sends them in one write. */
  readonly gapMs: number;
}

async function run(testCase: Case): Promise<void> {
  const server = await startServer(testCase.kind, testCase.handling);
  try {
    const { statusLines, closed } = await exchange(server.port, testCase.requests, {
      gapMs: testCase.gapMs,
      expected: testCase.requests.length,
    });
    const { bodyRead, delay, answer, delayGets } = testCase.handling;
    const how = testCase.kind === "node:http"
      ? delay
      : `${bodyRead}, ${delay}${answer === "string" ? "" : `, ${answer}`}`;
    const where = testCase.gapMs === 0 ? "one write" : `${testCase.gapMs} ms apart`;
    const subject = `${testCase.kind} ${testCase.label.replace("*", how)}` +
      `${delayGets ? " (GETs delayed too)" : ""}, ${where}`;
    const got = statusLines.length === 0 ? "(nothing)" : statusLines.join(" | ");
    const verdict = statusLines.length === testCase.requests.length ? "ok" : "LOST";
    console.log(
      `${verdict.padEnd(4)} ${subject.padEnd(78)} -> ${got}  ${closed ? "closed" : "open"}`,
    );
  } finally {
    await server.close();
  }
}

const bodyReads: BodyRead[] = ["text", "arrayBuffer", "bytes", "json", "getReader", "not read"];
const delays: Delay[] = ["none", "microtask", "setTimeout 0", "setTimeout 5 ms", "fs promise"];
const plain = (bodyRead: BodyRead, delay: Delay): Handling => ({
  bodyRead,
  delay,
  answer: "string",
});
const cases: Case[] = [];
const postThenGet = [post("/a"), get("/b")];

if (typeof Bun !== "undefined") {
  console.log(`Bun ${Bun.version}`);
  for (const bodyRead of bodyReads) {
    for (const delay of delays) {
      cases.push({
        kind: "Bun.serve",
        handling: plain(bodyRead, delay),
        requests: postThenGet,
        label: "POST(*) + GET",
        gapMs: 0,
      });
    }
  }
  for (const answer of ["Uint8Array", "Content-Length"] as const) {
    cases.push({
      kind: "Bun.serve",
      handling: { bodyRead: "text", delay: "setTimeout 5 ms", answer },
      requests: postThenGet,
      label: "POST(*) + GET",
      gapMs: 0,
    });
  }
  const slow = plain("text", "fs promise");
  // A next request that arrives while the answer before it still waits, or after it has left.
  const waiting = plain("text", "setTimeout 5 ms");
  cases.push(
    {
      kind: "Bun.serve",
      handling: waiting,
      requests: postThenGet,
      label: "POST(*) + GET",
      gapMs: 1,
    },
    {
      kind: "Bun.serve",
      handling: waiting,
      requests: postThenGet,
      label: "POST(*) + GET",
      gapMs: 100,
    },
    {
      kind: "Bun.serve",
      handling: slow,
      requests: [post("/a"), post("/b")],
      label: "POST(*) + POST",
      gapMs: 0,
    },
    {
      kind: "Bun.serve",
      handling: slow,
      requests: [get("/a"), get("/b"), get("/c")],
      label: "GET + GET + GET",
      gapMs: 0,
    },
    {
      kind: "Bun.serve",
      handling: { ...plain("not read", "setTimeout 5 ms"), delayGets: true },
      requests: [get("/a"), get("/b")],
      label: "GET(*) + GET",
      gapMs: 0,
    },
    {
      kind: "Bun.serve",
      handling: { ...plain("not read", "microtask"), delayGets: true },
      requests: [get("/a"), get("/b")],
      label: "GET(*) + GET",
      gapMs: 0,
    },
  );
} else {
  const deno = (globalThis as { Deno?: { version: { deno: string } } }).Deno;
  const runtime = deno === undefined ? `Node ${process.version}` : `Deno ${deno.version.deno}`;
  console.log(`Not on Bun (${runtime}): node:http only`);
}
for (const delay of ["none", "setTimeout 5 ms", "fs promise"] as const) {
  cases.push({
    kind: "node:http",
    handling: plain("text", delay),
    requests: postThenGet,
    label: "POST(*) + GET",
    gapMs: 0,
  });
}
cases.push(
  {
    kind: "node:http",
    handling: plain("text", "fs promise"),
    requests: [post("/a"), post("/b")],
    label: "POST(*) + POST",
    gapMs: 0,
  },
  {
    kind: "node:http",
    handling: { ...plain("text", "setTimeout 5 ms"), delayGets: true },
    requests: [get("/a"), get("/b"), get("/c")],
    label: "GET(*) + GET + GET",
    gapMs: 0,
  },
);

try {
  for (const testCase of cases) await run(testCase);
} finally {
  await fs.rm(scratchFile, { force: true });
}
