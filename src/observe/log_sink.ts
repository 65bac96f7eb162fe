/**
 * Where log lines go, best effort: stdout may fail (EPIPE, ENOSPC) or stall at any time, and
 * neither may end the process or delay an answer (docs/logs.md, "When stdout fails").
 * 1. At most one write is in flight; lines handed over meanwhile join the next write.
 * 2. What waits is bounded by `MAX_WAITING_CHARS`: a line past it is dropped.
 * 3. A failed write drops its lines, never retried; the next lines are tried all the same.
 * 4. Dropped lines are counted, and the first write that succeeds after drops is followed by one
 *    `warn` line with the count (carried on if that line is lost too).
 */
import { errorCodeOf } from "./error_code.ts";
import type { OutputStream } from "../runtime/contract.ts";

/** At most this much log text waits for a stream that is slow or stalled (characters ≈ bytes). */
export const MAX_WAITING_CHARS = 8 * 1024 * 1024;

/** Why lines were dropped, for the `warn` line: the stream's error code, or a full queue. */
const NOT_READ = "stdout was not read fast enough";

/** Makes the `warn` line that reports `dropped` lines, the last for `reason`. */
export type DropReport = (dropped: number, reason: string) => string;

/** Delivers log text to one stream, dropping and counting what it cannot take. */
export class LogSink {
  readonly #stream: OutputStream;
  readonly #report: DropReport;
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

  constructor(stream: OutputStream, report: DropReport) {
    this.#stream = stream;
    this.#report = report;
  }

  /** Every line dropped since the start (`animal_store_log_lines_dropped_total`). */
  get droppedLines(): number {
    return this.#droppedTotal;
  }

  /** Hands `text`, `lines` whole lines, to the stream; drops them if too much waits already. */
  write(text: string, lines: number): void {
    if (this.#waitingChars + text.length > MAX_WAITING_CHARS) {
      this.#drop(lines, NOT_READ);
      return;
    }
    this.#queue.push(text);
    this.#queuedLines += lines;
    this.#waitingChars += text.length;
    if (!this.#writing) this.#writeQueue();
  }

  /** Resolves once nothing waits: everything handed over was written or dropped. */
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
    this.#stream.write(text).then(
      () => this.#written(chars),
      (error) => this.#failed(chars, lines, error),
    );
  }

  #written(chars: number): void {
    this.#waitingChars -= chars;
    this.#reportInFlight = 0;
    if (this.#unreported > 0) {
      // The stream works again: say what it missed before anything else.
      const report = this.#report(this.#unreported, this.#reason);
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
