/**
 * JSON-lines logging on stdout: one object per line, with `time` and `level`. Lines are buffered
 * and handed to the sink once per event-loop turn, so a burst of requests costs one write; the
 * sink (log_sink.ts) never makes a request wait on stdout, and drops what stdout cannot take.
 * Callers never pass keys or request bodies (docs/logs.md).
 */
import { LogSink } from "./log_sink.ts";
import { type OutputStream } from "../runtime/contract.ts";

export interface Logger {
  info(fields: Record<string, unknown>): void;
  warn(fields: Record<string, unknown>): void;
  error(fields: Record<string, unknown>): void;
  /** The request's one line (docs/logs.md): `info`, `msg: "request"`, then `line`'s fields. */
  request(line: RequestLine): void;
  /**
   * Hands what is buffered to stdout and resolves once stdout took it, or dropped it, or after
   * `FLUSH_WAIT_MS` (a stalled reader never holds up an exit).
   */
  flush(): Promise<void>;
  /** Lines dropped since the start because stdout could not take them. */
  droppedLines(): number;
}

/** A request's log line, fields in this order; `key` ("" for none) and `traceId` may be left out. */
export interface RequestLine {
  /** A token (RFC 9110 §9.1): the runtimes refuse any other method, so it needs no escaping. */
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  /** Checked against `[A-Za-z0-9._:=-]` or made by us (http/request_id.ts): no escaping. */
  readonly requestId: string;
  /** The key's hex fingerprint. */
  readonly key: string;
  /** 32 hex digits (http/trace_context.ts). */
  readonly traceId: string | undefined;
}

/** How long `flush` waits for stdout before giving up on what it has not taken. */
const FLUSH_WAIT_MS = 500;

/** Above this much buffered text, the buffer goes to the sink at once. */
const MAX_BUFFER_CHARS = 65536;

/** A logger that writes JSON lines to `stream` (stdout). */
export function createJsonLogger(stream: OutputStream): Logger {
  const sink = new LogSink(stream, (dropped, reason) =>
    line("warn", {
      msg: `${dropped} log lines dropped: ${reason}`,
      dropped,
    }));
  let buffer = "";
  let lines = 0;
  let scheduled = false;
  const handOver = () => {
    scheduled = false;
    if (buffer === "") return;
    sink.write(buffer, lines);
    buffer = "";
    lines = 0;
  };
  const append = (text: string) => {
    buffer += text;
    lines++;
    if (buffer.length > MAX_BUFFER_CHARS) return handOver();
    if (!scheduled) {
      scheduled = true;
      setTimeout(handOver, 0);
    }
  };
  return {
    info: (fields) => append(line("info", fields)),
    warn: (fields) => append(line("warn", fields)),
    error: (fields) => append(line("error", fields)),
    // Concatenated rather than stringified: only the path can need escaping (see RequestLine).
    request: (request) => {
      let text = `{"time":"${isoTime()}","level":"info","msg":"request",` +
        `"method":"${request.method}","path":${jsonString(request.path)},` +
        `"status":${request.status},"durationMs":${request.durationMs},` +
        `"requestId":"${request.requestId}"`;
      if (request.key !== "") text += `,"key":"${request.key}"`;
      if (request.traceId !== undefined) text += `,"traceId":"${request.traceId}"`;
      append(text + "}\n");
    },
    flush: () => {
      handOver();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, FLUSH_WAIT_MS);
        sink.idle().then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    droppedLines: () => sink.droppedLines,
  };
}

/** The line of `{ time, level, ...fields }`, without copying the fields into a new object. */
function line(level: string, fields: Record<string, unknown>): string {
  const rest = JSON.stringify(fields);
  return `{"time":"${isoTime()}","level":"${level}"${rest === "{}" ? "}" : `,${rest.slice(1)}`}\n`;
}

/** Printable ASCII but `"` and `\`: the characters a JSON string holds as they are. */
const PLAIN_JSON_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** `JSON.stringify(text)`, without its cost for the usual path, which needs no escaping. */
function jsonString(text: string): string {
  return PLAIN_JSON_TEXT.test(text) ? `"${text}"` : JSON.stringify(text);
}

let isoMillis = NaN;
let isoText = "";

/** `new Date().toISOString()`, made once per millisecond: a busy server logs many per ms. */
function isoTime(): string {
  const now = Date.now();
  if (now !== isoMillis) {
    isoMillis = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}
