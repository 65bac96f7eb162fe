/**
 * A minimal reproduction, with no code of the service: Bun 1.4.5's `Bun.serve` spins a core
 * while it is out of file descriptors, and leaves new connections unanswered until it has
 * descriptors again.
 *
 *   bun scripts/repro/bun_emfile.ts
 *
 * It starts a bare `Bun.serve` answering "ok" in a child process limited to 64 descriptors
 * (bash's `ulimit -n`), opens 200 connections to it that send nothing, then prints the CPU the
 * child used over one second and what a new connection got within 1.5 s, e.g.
 *   CPU over 1 s: 71 ticks of 100; a new connection: no answer
 * and again after the idle connections are closed. Run under Deno (`deno run -A`), it starts a
 * bare `Deno.serve` instead, which for comparison ends its accept loop on the first failure
 * (the process exits, unless `finished` is handled as src/runtime/deno.ts does).
 *
 * Why: the listening socket stays readable while connections wait in its backlog, and when
 * `accept` fails with EMFILE uSockets' loop (packages/bun-usockets/src/loop.c) neither backs off
 * nor drops the waiting connection, so the next turn of the event loop tries again at once:
 * tens of thousands of failed `accept4` calls a second (`strace -c -f -p PID`). libuv, under
 * Node, closes a spare descriptor, accepts and closes the waiting connections, and opens it
 * again. A fix is proposed upstream (oven-sh/bun#32705).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import process from "node:process";

declare const Bun: { serve(options: object): { port: number } } | undefined;
declare const Deno: { serve(options: object, handler: () => Response): unknown } | undefined;

const LIMIT = 64;
const IDLE = 200;

if (process.argv[2] === "serve") {
  const onListen = (port: number) => console.log(port);
  if (typeof Bun !== "undefined") {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
    onListen(server.port);
  } else if (typeof Deno !== "undefined") {
    Deno.serve({
      port: 0,
      hostname: "127.0.0.1",
      onListen: ({ port }: { port: number }) => onListen(port),
    }, () => new Response("ok"));
  }
} else {
  await main();
}

async function main(): Promise<void> {
  const script = process.argv[1];
  const runtime = typeof Deno !== "undefined"
    ? `"${process.execPath}" run -A "${script}"`
    : `"${process.execPath}" "${script}"`;
  const child = spawn("bash", ["-c", `ulimit -n ${LIMIT} && exec ${runtime} serve`], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  child.on("exit", (code) => console.log(`server exited with ${code}`));
  const port = await new Promise<number>((resolve) =>
    child.stdout!.once("data", (text) => resolve(Number(String(text).trim())))
  );
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const ticks = () => {
    const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  };
  const report = async (when: string) => {
    if (child.exitCode !== null) return console.log(`${when}: the server is gone`);
    const before = ticks();
    await sleep(1000);
    const used = ticks() - before;
    console.log(`${when}: CPU over 1 s: ${used} ticks of 100; a new connection: ${await ask()}`);
  };
  const ask = () =>
    new Promise<string>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      let data = "";
      const timer = setTimeout(() => done("no answer"), 1500);
      const done = (outcome: string) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(outcome);
      };
      socket.on("data", (chunk) => {
        data += chunk;
        if (data.includes("\r\n\r\n")) done(data.slice(0, data.indexOf("\r\n")));
      });
      socket.on("error", () => done("refused or reset"));
      socket.on("close", () => done("closed"));
      socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    });

  const idle: Socket[] = [];
  for (let i = 0; i < IDLE; i++) idle.push(connect(port, "127.0.0.1").on("error", () => {}));
  await sleep(500);
  await report(`${IDLE} idle connections open`);
  for (const socket of idle) socket.destroy();
  await sleep(200);
  await report("idle connections closed");
  child.kill();
}
