/**
 * JSON-lines logging on stdout (docs/logs.md), handed to the `LogSink` once per event-loop turn,
 * so a burst of requests costs one write. Callers never pass keys or request bodies.
 */
import { errorCodeOf } from "./error_code.ts";
import type { OutputStream } from "../runtime/contract.ts";

export interface Logger {
  info(fields: Record<string, unknown>): void;
  warn(fields: Record<string, unknown>): void;
  error(fields: Record<string, unknown>): void;
  /** The request's one line (docs/logs.md): `info`, `msg: "request"`, then `line`'s fields. */
  request(line: RequestLine): void;
  /** Resolves once stdout took or dropped what is buffered, or after `FLUSH_WAIT_MS`. */
  flush(): Promise<void>;
  /** Lines dropped since the start because stdout could not take them. */
  droppedLines(): number;
}

/** A request's log line, fields in this order; `key` ("" for none) and `traceId` may be left out. */
export interface RequestLine {
  /** A token (RFC 9110 §9.1), as the runtimes check: no escaping. */
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  /** Checked against `[A-Za-z0-9._:=-]` or made by us (http/request_id.ts): no escaping. */
  readonly requestId: string;
  /** Hex: the key's fingerprint, and 32 digits (http/request_id.ts). */
  readonly key: string;
  readonly traceId: string | undefined;
}

/** How long `flush` waits for stdout: a stalled reader never holds up an exit. */
const FLUSH_WAIT_MS = 500;

/** Above this much buffered text, the buffer goes to the sink at once. */
const MAX_BUFFER_CHARS = 65536;

export function createJsonLogger(stream: OutputStream): Logger {
  const report = (dropped: number, reason: string) =>
    line("warn", { msg: `${dropped} log lines dropped: ${reason}`, dropped });
  const sink = new LogSink(stream, report);
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

/** At most this much log text waits for a stream that is slow or stalled (characters ≈ bytes). */
export const MAX_WAITING_CHARS = 8 * 1024 * 1024;

/**
 * Where log lines go, best effort: a failing or stalled stdout never ends the process nor delays
 * an answer (docs/logs.md, "When stdout fails"). One write in flight; what waits is bounded; a
 * failed write's lines are dropped and counted, reported by one `warn` line after the next success.
 */
export class LogSink {
  #queue: string[] = [];
  #queuedLines = 0;
  /** The queue's characters and the write's in flight. */
  #waitingChars = 0;
  #writing = false;
  /** Dropped lines the `warn` line in flight reports (0 when none is). */
  #reportInFlight = 0;
  #droppedTotal = 0;
  #unreported = 0;
  #reason = "";
  #onIdle: (() => void)[] = [];

  constructor(
    private readonly stream: OutputStream,
    private readonly report: (dropped: number, reason: string) => string,
  ) {}

  get droppedLines(): number {
    return this.#droppedTotal;
  }

  /** Hands `text`, `lines` whole lines, to the stream; drops them if too much waits already. */
  write(text: string, lines: number): void {
    if (this.#waitingChars + text.length > MAX_WAITING_CHARS) {
      return this.#drop(lines, "stdout was not read fast enough");
    }
    this.#queue.push(text);
    this.#queuedLines += lines;
    this.#waitingChars += text.length;
    if (!this.#writing) this.#writeQueue();
  }

  idle(): Promise<void> {
    if (!this.#writing) return Promise.resolve();
    return new Promise((resolve) => this.#onIdle.push(resolve));
  }

  #writeQueue(): void {
    if (this.#queue.length === 0) {
      this.#writing = false;
      for (const resolve of this.#onIdle.splice(0)) resolve();
      return;
    }
    const text = this.#queue.length === 1 ? this.#queue[0] : this.#queue.join("");
    const lines = this.#queuedLines;
    this.#queue = [];
    this.#queuedLines = 0;
    this.#writing = true;
    // Only the length is kept: the text is the stream's now, and may go once it is encoded.
    const chars = text.length;
    this.stream.write(text).then(
      () => this.#written(chars),
      (error) => this.#failed(chars, lines, error),
    );
  }

  #written(chars: number): void {
    this.#waitingChars -= chars;
    this.#reportInFlight = 0;
    if (this.#unreported > 0) {
      // The stream works again: say what it missed before anything else.
      const report = this.report(this.#unreported, this.#reason);
      this.#queue.unshift(report);
      this.#queuedLines++;
      this.#waitingChars += report.length;
      this.#reportInFlight = this.#unreported;
      this.#unreported = 0;
    }
    this.#writeQueue();
  }

  #failed(chars: number, lines: number, error: unknown): void {
    this.#waitingChars -= chars;
    // A lost report's count goes into the next one (the report line itself is counted as dropped).
    this.#unreported += this.#reportInFlight;
    this.#reportInFlight = 0;
    this.#drop(lines, `stdout failed: ${errorCodeOf(error)}`);
    this.#writeQueue();
  }

  #drop(lines: number, reason: string): void {
    this.#droppedTotal += lines;
    this.#unreported += lines;
    this.#reason = reason;
  }
}
