/**
 * HTTPS from the tests' side, by node:tls and node:https (the same on Deno, Bun and Node):
 * requests that trust exactly the certificates a test made, and a kept-open connection that
 * reports the certificate the server presented, to see which pair a server serves, and requests
 * pipelined on one connection.
 */
import { Buffer } from "node:buffer";
import { request } from "node:https";
import { connect, type TLSSocket } from "node:tls";
import {
  parseFramedResponse,
  parseRawResponse,
  type PipelinedOutcome,
  type RawResponse,
} from "./raw_http.ts";

/** A response with its whole body as text, and the fingerprint of the server's certificate. */
export interface HttpsResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  readonly fingerprint: string;
}

/**
 * One request on a fresh connection to 127.0.0.1:`port`, trusting only `ca` and checking the
 * certificate names `localhost` (the test certificates do); with `acceptRefused`, going on with a
 * certificate the check refuses (the caller compares `fingerprint`).
 */
export function httpsRequest(
  port: number,
  path: string,
  options: {
    ca: string[];
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    acceptRefused?: boolean;
  },
): Promise<HttpsResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request({
      host: "127.0.0.1",
      port,
      path,
      method: options.method ?? "GET",
      headers: options.headers,
      ca: options.ca,
      rejectUnauthorized: options.acceptRefused !== true,
      servername: "localhost",
      agent: false,
      timeout: 10_000,
    }, (incoming) => {
      const chunks: Buffer[] = [];
      const fingerprint = (incoming.socket as TLSSocket).getPeerCertificate().fingerprint256;
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("error", reject);
      incoming.on("end", () =>
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          fingerprint,
        }));
    });
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer to ${path}`)));
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}

/** A kept-open HTTPS connection: the certificate it was served, and requests one at a time. */
export interface KeptConnection {
  readonly fingerprint: string;
  /** Sends a request (a head, and its body if any) and reads one Content-Length-framed response. */
  exchange(head: string): Promise<RawResponse>;
  close(): void;
}

/** Opens a TLS connection to 127.0.0.1:`port` trusting only `ca`. */
export function openKeptConnection(port: number, ca: string[]): Promise<KeptConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, ca, servername: "localhost" }, () => {
      socket.off("error", reject);
      resolve({
        fingerprint: socket.getPeerCertificate().fingerprint256,
        exchange: (head) => exchangeOn(socket, head),
        close: () => socket.destroy(),
      });
    });
    socket.once("error", reject);
  });
}

function exchangeOn(socket: TLSSocket, head: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const done = (error?: Error, response?: RawResponse) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("close", onClose);
      socket.off("error", done);
      if (response !== undefined) resolve(response);
      else reject(error);
    };
    const onData = (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const response = parseRawResponse(data);
      if (response !== undefined) done(undefined, response);
    };
    const onClose = () => done(new Error(`connection closed before a whole response: ${data}`));
    const timer = setTimeout(() => done(new Error("no response on the kept connection")), 10_000);
    socket.on("data", onData);
    socket.on("close", onClose);
    socket.on("error", done);
    socket.write(head);
  });
}

/**
 * Sends `requests` back to back in one write on a fresh TLS connection trusting only `ca`, and
 * counts the whole answers: resolves once there are as many as requests, when the server closes
 * the connection, or after `timeoutMs`; never rejects.
 */
export function pipelinedOverTls(
  port: number,
  ca: string[],
  requests: string[],
  timeoutMs: number,
): Promise<PipelinedOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, ca, servername: "localhost" });
    const answers: RawResponse[] = [];
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (end: PipelinedOutcome["end"]) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: answers, end });
    };
    const timer = setTimeout(() => finish("timed out"), timeoutMs);
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      // Answers are taken off the front as they complete, so the buffer stays short.
      for (let framed = parseFramedResponse(data); framed; framed = parseFramedResponse(data)) {
        answers.push(framed.response);
        data = data.subarray(framed.length);
      }
      if (answers.length >= requests.length) finish("answered");
    });
    socket.on("error", () => finish("closed"));
    socket.on("close", () => finish("closed"));
    socket.once("secureConnect", () => socket.write(requests.join("")));
  });
}
