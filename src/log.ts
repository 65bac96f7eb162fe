/**
 * JSON-lines logging on stdout: one object per line, with `time` and `level`. Lines are buffered
 * and written once per event-loop turn, so a burst of requests costs one write. Callers never
 * pass keys or request bodies (docs/logs.md).
 */

export interface Logger {
  info(fields: Record<string, unknown>): void;
  warn(fields: Record<string, unknown>): void;
  error(fields: Record<string, unknown>): void;
  /** The request's one line (docs/logs.md): `info`, `msg: "request"`, then `line`'s fields. */
  request(line: RequestLine): void;
  /** Writes out anything buffered (at shutdown). */
  flush(): void;
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

/** Where a JSON logger writes, and how much it has accepted but not yet delivered. */
export interface LogSink {
  write(text: string): void;
  /** Bytes written but not yet taken by the reader (a pipe's backlog); 0 when unknown. */
  backlog(): number;
}

/** Above this backlog lines are dropped and counted: a stalled reader must not grow our memory. */
const MAX_BACKLOG_BYTES = 8 * 1024 * 1024;

/** A logger that writes JSON lines to `sink` (e.g. stdout). */
export function createJsonLogger(sink: LogSink): Logger {
  let buffer = "";
  let scheduled = false;
  let dropped = 0;
  const flush = () => {
    scheduled = false;
    const text = buffer;
    buffer = "";
    if (text === "") return;
    if (sink.backlog() > MAX_BACKLOG_BYTES) {
      for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) dropped++;
      return;
    }
    if (dropped > 0) {
      const msg = `${dropped} log lines dropped: stdout was not read fast enough`;
      sink.write(line("warn", { msg }));
      dropped = 0;
    }
    sink.write(text);
  };
  const append = (text: string) => {
    buffer += text;
    if (buffer.length > 65536) return flush();
    if (!scheduled) {
      scheduled = true;
      setTimeout(flush, 0);
    }
  };
  return {
    info: (fields) => append(line("info", fields)),
    warn: (fields) => append(line("warn", fields)),
    error: (fields) => append(line("error", fields)),
    // Concatenated rather than stringified: only the path can need escaping (see RequestLine).
    request: (request) => {
      let text = `{"time":"${isoTime()}","level":"info","msg":"request",` +
        `"method":"${request.method}","path":${JSON.stringify(request.path)},` +
        `"status":${request.status},"durationMs":${request.durationMs},` +
        `"requestId":"${request.requestId}"`;
      if (request.key !== "") text += `,"key":"${request.key}"`;
      if (request.traceId !== undefined) text += `,"traceId":"${request.traceId}"`;
      append(text + "}\n");
    },
    flush,
  };
}

/** The line of `{ time, level, ...fields }`, without copying the fields into a new object. */
function line(level: string, fields: Record<string, unknown>): string {
  const rest = JSON.stringify(fields);
  return `{"time":"${isoTime()}","level":"${level}"${rest === "{}" ? "}" : `,${rest.slice(1)}`}\n`;
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
