/**
 * A minimal reproduction, with no code of the service: Node's `node:https` drops a connection
 * that pipelines many small HTTP/1.1 requests (all sent in one write), where `node:http` answers
 * every one.
 *
 *   node scripts/repro/node_https_pipelining.mjs
 *
 * To a bare `node:https` server (a self-signed pair made with `openssl`) and a bare `node:http`
 * server on 127.0.0.1, each answering at once, it sends 10, 100, 300 and 1,000 GETs in one write
 * on one connection and prints the answers that came back within 5 s, whether the server closed
 * the connection, and the `clientError` it reported. Exits 1 when a case lost answers.
 *
 * What it shows (seen on Node 20.20.2, 22.23.5, 24.22.3 and 26.12.1): node:http pauses its
 * parser while answers queue up on a connection, and resumes it once they are written; over
 * TLS, the socket goes on handing the parser the data it has already decrypted, the paused
 * parser fails with HPE_PAUSED, and the server destroys the connection after the first answer.
 * Over plain TCP the socket's reads stop while the parser is paused, and every request is
 * answered.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { connect as connectTcp } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as connectTls } from "node:tls";

const DEPTHS = [10, 100, 300, 1_000];
const WAIT_MS = 5_000;

/** A self-signed P-256 certificate for 127.0.0.1, made by openssl in `dir`. */
function selfSigned(dir) {
  const key = join(dir, "key.pem");
  const cert = join(dir, "cert.pem");
  const openssl = (...args) => execFileSync("openssl", args, { stdio: "ignore" });
  openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key);
  const subject = ["-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"];
  openssl("req", "-x509", "-key", key, "-out", cert, "-days", "1", ...subject);
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

/** Every request is answered at once: 200, `ok\n`. */
function answer(request, response) {
  request.resume();
  response.writeHead(200, { "content-type": "text/plain", "content-length": "3" });
  response.end("ok\n");
}

/**
 * Writes `depth` GETs in one write on a fresh connection (`open` makes it) and resolves with the
 * number of answers and whether the server closed the connection, once all are answered, at the
 * close, or after WAIT_MS.
 */
function pipeline(open, depth) {
  return new Promise((resolve) => {
    const socket = open();
    let received = "";
    const answered = () => received.split("HTTP/1.1 200 OK").length - 1;
    const finish = (closed) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ answered: answered(), closed });
    };
    const timer = setTimeout(() => finish(false), WAIT_MS);
    socket.setEncoding("latin1");
    socket.on("data", (chunk) => {
      received += chunk;
      if (answered() >= depth) finish(false);
    });
    socket.on("error", () => finish(true));
    socket.on("close", () => finish(true));
    socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".repeat(depth));
  });
}

const dir = mkdtempSync(join(tmpdir(), "node-https-pipelining-"));
let lost = false;
try {
  const pair = selfSigned(dir);
  const { platform, arch, versions } = process;
  console.log(`Node ${process.version} (${platform} ${arch}, its OpenSSL ${versions.openssl})`);
  const servers = [
    { name: "node:https", server: createHttpsServer(pair, answer), tls: true },
    { name: "node:http", server: createHttpServer(answer), tls: false },
  ];
  for (const { name, server, tls } of servers) {
    const errors = [];
    server.on("clientError", (error, socket) => {
      errors.push(`${error.code ?? ""} ${error.message}`.trim());
      socket.destroy();
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address();
    const open = tls
      ? () => connectTls({ port, host: "127.0.0.1", ca: pair.cert })
      : () => connectTcp(port, "127.0.0.1");
    for (const depth of DEPTHS) {
      errors.length = 0;
      const outcome = await pipeline(open, depth);
      // Let a clientError that follows the close be reported with its case.
      await new Promise((resolve) => setTimeout(resolve, 50));
      lost ||= outcome.answered < depth;
      const ending = outcome.closed ? "closed by the server" : "open";
      const reported = errors.length === 0 ? "" : `  clientError: ${errors.join("; ")}`;
      console.log(
        `${name.padEnd(11)} ${String(depth).padStart(4)} pipelined -> ` +
          `${outcome.answered} answered, ${ending}${reported}`,
      );
    }
    server.closeAllConnections();
    server.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = lost ? 1 : 0;
