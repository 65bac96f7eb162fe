/**
 * Can the Deno adapter bound slow clients itself? `Deno.serve` has no header, body or idle
 * timeouts of its own (node:http has headersTimeout and requestTimeout). This starts a bare
 * `Deno.serve` on 127.0.0.1 with the only tool an adapter has, a handler that reads
 * `request.body` against a deadline and then cancels it and answers 408, and drives it with
 * two bounded slow clients over node:net:
 *
 *   1. slow head: a request line, then one header byte a second, for at most --seconds;
 *   2. endless body: a head announcing a chunked body, then 1 KiB every 100 ms for at most
 *      --seconds, reading all the while.
 *
 * For each it prints when the server answered and when (if ever) it closed the connection.
 *
 *   node_modules/.bin/deno run --allow-net scripts/bench/measure_deno_timeouts.ts --seconds=40
 */
import { Buffer } from "node:buffer";
import { connect } from "node:net";
import process from "node:process";

const seconds = Number(
  process.argv.find((arg) => arg.startsWith("--seconds="))?.slice("--seconds=".length) ?? "40",
);
const BODY_DEADLINE_MS = 2_000;

async function readWithDeadline(request: Request): Promise<Response> {
  const reader = request.body?.getReader();
  if (reader === undefined) return new Response("no body\n");
  const deadline = Date.now() + BODY_DEADLINE_MS;
  while (true) {
    const timeout = new Promise<"late">((resolve) =>
      setTimeout(() => resolve("late"), Math.max(0, deadline - Date.now()))
    );
    const next = await Promise.race([reader.read(), timeout]);
    if (next === "late") {
      await reader.cancel().catch(() => {});
      return new Response("body too slow\n", { status: 408, headers: { connection: "close" } });
    }
    if (next.done) return new Response("whole body\n");
  }
}

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  readWithDeadline,
);
const port = server.addr.port;

/** Runs one slow client; resolves with what happened, measured from the first byte sent. */
function slowClient(
  name: string,
  head: string,
  drip: () => string,
  intervalMs: number,
): Promise<string> {
  return new Promise((resolve) => {
    const started = Date.now();
    const at = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
    let answered = "no answer";
    let received = Buffer.alloc(0);
    const socket = connect(port, "127.0.0.1", () => socket.write(head));
    const timer = setInterval(() => {
      if (Date.now() - started > seconds * 1000) {
        finish(`still open after ${seconds} s (client gave up)`);
      } else socket.write(drip());
    }, intervalMs);
    const finish = (how: string) => {
      clearInterval(timer);
      socket.destroy();
      resolve(`${name}: ${answered}; ${how}`);
    };
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (answered === "no answer") {
        answered = `answered "${received.toString("latin1").split("\r\n")[0]}" at ${at()}`;
      }
    });
    socket.on("close", () => finish(`server closed the connection at ${at()}`));
    socket.on("error", (error) => finish(`connection failed at ${at()}: ${error.message}`));
  });
}

console.log(`Deno ${Deno.version.deno}, body deadline in the handler ${BODY_DEADLINE_MS} ms`);
const results = await Promise.all([
  slowClient("slow head", "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ", () => "a", 1000),
  slowClient(
    "endless body",
    "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
    () => `400\r\n${"x".repeat(1024)}\r\n`,
    100,
  ),
]);
for (const line of results) console.log(line);
// Not `await server.shutdown()`: in Deno 2.9.5 it did not resolve (over 10 minutes) after these
// clients had gone, and the measurement is done.
process.exit(0);
