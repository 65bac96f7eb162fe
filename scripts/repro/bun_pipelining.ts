/**
 * A minimal reproduction, with no code of the service: Bun 1.4.5 drops pipelined HTTP/1.1
 * requests behind a response that completes on a later turn of the event loop.
 *
 *   bun scripts/repro/bun_pipelining.ts    (on Node or Deno: the node:http server only)
 *
 * A bare `Bun.serve` and a `node:http` server answer `POST /fsync` after an fdatasync (as a create
 * does), `POST /timer` after 5 ms, `POST /now` and a GET at once. Each case sends a POST and a GET
 * on a new connection, in one write or 1 ms apart, and prints the status lines that came back
 * within 600 ms, whether the server closed, and whether the POST's handler ran to its end. On Bun
 * 1.4.5, `Bun.serve` answers neither request of the /fsync and /timer cases and closes, though the
 * handler ran: its uWS server closes a connection that sends a request while the one before is
 * pending ("Important for denying async pipelining", packages/bun-uws/src/HttpContext.h). /now
 * (answered within the handler) and node:http, Bun's too, answer both. The first version also
 * varied the body read, the answer, the delay and the method, and sent a request after the answer
 * had left: `git show 5968204:scripts/repro/bun_pipelining.ts`.
 */
import { promises as fs } from "node:fs";
import { createServer } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

type BunServer = { port: number; stop(closeActiveConnections: boolean): Promise<void> };
declare const Bun: { serve(options: object): BunServer } | undefined;

const scratchFile = join(tmpdir(), `bun-pipelining-${process.pid}`);
let handled = 0; // POST handlers that ran to their answer, whether or not it was sent

async function handlePost(path: string): Promise<void> {
  if (path === "/fsync") {
    const file = await fs.open(scratchFile, "a");
    await file.datasync().finally(() => file.close());
  } else if (path === "/timer") {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  handled++;
}

const { bun: bunVersion, deno, node: nodeVersion } = process.versions as Record<string, string>;
console.log(bunVersion ? `Bun ${bunVersion}` : deno ? `Deno ${deno}` : `Node ${nodeVersion}`);
const bun = typeof Bun === "undefined" ? undefined : Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request: Request) {
    if (request.method !== "POST") return new Response("got\n");
    await request.text();
    await handlePost(new URL(request.url).pathname);
    return new Response("made\n", { status: 201 });
  },
});
const node = createServer((request, response) => {
  request.resume().on("end", async () => {
    if (request.method === "POST") await handlePost(request.url!);
    response.writeHead(request.method === "POST" ? 201 : 200, { "content-length": 0 }).end();
  });
});
await new Promise<void>((resolve) => node.listen(0, "127.0.0.1", resolve));
node.unref(); // the process ends with the last case
const servers = [{ name: "node:http", port: (node.address() as { port: number }).port }];
if (bun) servers.unshift({ name: "Bun.serve", port: bun.port });

/** Sends `post`, then a GET `gapMs` later (0: in the same write), on a new connection. */
function exchange(port: number, post: string, gapMs: number) {
  const get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  return new Promise<{ statusLines: string[]; closed: boolean }>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let data = "";
    const statusLines = () => [...data.matchAll(/HTTP\/1\.1 ([^\r]*)\r\n/g)].map((m) => m[1]);
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ statusLines: statusLines(), closed });
    };
    const timer = setTimeout(() => finish(false), 600);
    socket.on("data", (chunk) => {
      data += chunk;
      if (statusLines().length === 2) setTimeout(() => finish(false), 20);
    });
    socket.on("close", () => finish(true)).on("error", () => finish(true));
    if (gapMs === 0) return void socket.write(post + get);
    socket.write(post);
    setTimeout(() => socket.writable && socket.write(get), gapMs);
  });
}

try {
  for (const server of servers) {
    for (const [path, gapMs] of [["/fsync", 0], ["/timer", 1], ["/now", 0]] as const) {
      const before = handled;
      const post = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}`;
      const { statusLines, closed } = await exchange(server.port, post, gapMs);
      await new Promise((resolve) => setTimeout(resolve, 50)); // for a handler still running
      const subject = `${server.name} POST ${path} + GET, ${gapMs ? "1 ms apart" : "one write"}`;
      const got = statusLines.length ? statusLines.join(" | ") : "(nothing)";
      const ran = handled > before ? "ran" : "did not run";
      console.log(
        `${statusLines.length === 2 ? "ok  " : "LOST"} ${subject.padEnd(40)} -> ${got}  ` +
          `${closed ? "closed" : "open"}; the POST's handler ${ran}`,
      );
    }
  }
} finally {
  await bun?.stop(true);
  await fs.rm(scratchFile, { force: true });
}
