/**
 * JSON-lines logging on stdout: one object per line, with `time` and `level`. Lines are buffered
 * and written once per event-loop turn, so a busy server makes one write per burst instead of
 * one per request. Callers never pass keys or request bodies (docs/logs.md).
 */

/** Where log lines go. */
export interface Logger {
  info(fields: Record<string, unknown>): void;
  warn(fields: Record<string, unknown>): void;
  error(fields: Record<string, unknown>): void;
  /** The request's one line (docs/logs.md): `info`, `msg: "request"`, then `line`'s fields. */
  request(line: RequestLine): void;
  /** Writes out anything buffered (at shutdown). */
  flush(): void;
}

/**
 * The fields of a request's log line, always in this order; `key` and `traceId` are left out of
 * the line when empty or undefined.
 */
export interface RequestLine {
  /** A token (RFC 9110 §9.1): the runtimes refuse any other method, so it needs no escaping. */
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  /** Checked against `[A-Za-z0-9._:=-]` or made by us (http/request_id.ts): no escaping. */
  readonly requestId: string;
  /** The key's hex fingerprint, "" when no key was checked. */
  readonly key: string;
  /** 32 hex digits (http/trace_context.ts), or undefined. */
  readonly traceId: string | undefined;
}

/** Where a JSON logger writes, and how much it has accepted but not yet delivered. */
export interface LogSink {
  write(text: string): void;
  /** Bytes written but not yet taken by the reader (a pipe's backlog); 0 when unknown. */
  backlog(): number;
}

/**
 * Above this backlog, lines are dropped (and counted) instead of queued: a log reader that stalls
 * must not make the service's memory grow without bound.
 */
const MAX_BACKLOG_BYTES = 8 * 1024 * 1024;

/** A logger that writes JSON lines to `sink` (e.g. stdout). */
export function createJsonLogger(sink: LogSink): Logger {
  let buffer = "";
  let scheduled = false;
  let dropped = 0;
  const flush = () => {
    scheduled = false;
    if (buffer === "") return;
    const text = buffer;
    buffer = "";
    if (sink.backlog() > MAX_BACKLOG_BYTES) {
      for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) dropped++;
      return;
    }
    if (dropped > 0) {
      const note =
        `{"time":"${isoTime()}","level":"warn","msg":"${dropped} log lines dropped: stdout was not read fast enough"}\n`;
      dropped = 0;
      sink.write(note);
    }
    sink.write(text);
  };
  const append = (line: string) => {
    buffer += line;
    if (buffer.length > 65536) return flush();
    if (!scheduled) {
      scheduled = true;
      setTimeout(flush, 0);
    }
  };
  const emit = (level: string, fields: Record<string, unknown>) => {
    // `{"time":…,"level":…,` then the caller's fields: the same line as stringifying
    // `{ time, level, ...fields }`, without copying the fields into a new object per line.
    const rest = JSON.stringify(fields);
    append(
      `{"time":"${isoTime()}","level":${JSON.stringify(level)}` +
        (rest === "{}" ? "}" : `,${rest.slice(1)}`) + "\n",
    );
  };
  // The line every request writes, by concatenation of its known fields: stringifying a fields
  // object was most of the log's share (~15%) of a Bun GET. Only the path can hold characters
  // JSON must escape; the other fields are numbers or checked token characters (see RequestLine).
  const request = (line: RequestLine) => {
    let text = `{"time":"${isoTime()}","level":"info","msg":"request","method":"${line.method}",` +
      `"path":${JSON.stringify(line.path)},"status":${line.status},` +
      `"durationMs":${line.durationMs},"requestId":"${line.requestId}"`;
    if (line.key !== "") text += `,"key":"${line.key}"`;
    if (line.traceId !== undefined) text += `,"traceId":"${line.traceId}"`;
    append(text + "}\n");
  };
  return {
    info: (fields) => emit("info", fields),
    warn: (fields) => emit("warn", fields),
    error: (fields) => emit("error", fields),
    request,
    flush,
  };
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

/** A logger that keeps lines in memory, for tests. */
export function createMemoryLogger(): Logger & { readonly lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const push = (level: string) => (fields: Record<string, unknown>) =>
    lines.push({ level, ...fields });
  const request = (line: RequestLine) => {
    const { key, traceId, ...fields } = line;
    lines.push({ level: "info", msg: "request", ...fields });
    if (key !== "") lines.at(-1)!.key = key;
    if (traceId !== undefined) lines.at(-1)!.traceId = traceId;
  };
  return {
    lines,
    info: push("info"),
    warn: push("warn"),
    error: push("error"),
    request,
    flush() {},
  };
}
