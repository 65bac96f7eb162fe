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
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  readonly requestId: string;
  /** The key's hex fingerprint. */
  readonly key: string;
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
    request: ({ method, path, status, durationMs, requestId, key, traceId }) =>
      append(line("info", {
        msg: "request",
        method,
        path,
        status,
        durationMs,
        requestId,
        key: key === "" ? undefined : key,
        traceId,
      })),
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

/** The line of `{ time, level, ...fields }`. */
function line(level: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ time: new Date().toISOString(), level, ...fields }) + "\n";
}
