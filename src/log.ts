/**
 * JSON-lines logging on stdout: one object per line, with `time` and `level`. Lines are buffered
 * and written once per event-loop turn, so a busy server makes one write per burst instead of
 * one per request. Callers never pass keys or request bodies (SPEC.md, Operations).
 */

/** Where log lines go. */
export interface Logger {
  info(fields: Record<string, unknown>): void;
  warn(fields: Record<string, unknown>): void;
  error(fields: Record<string, unknown>): void;
  /** Writes out anything buffered (at shutdown). */
  flush(): void;
}

/** A logger that writes JSON lines through `write` (e.g. stdout). */
export function createJsonLogger(write: (text: string) => void): Logger {
  let buffer = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (buffer === "") return;
    const text = buffer;
    buffer = "";
    write(text);
  };
  const emit = (level: string, fields: Record<string, unknown>) => {
    buffer += JSON.stringify({ time: new Date().toISOString(), level, ...fields }) + "\n";
    if (buffer.length > 65536) return flush();
    if (!scheduled) {
      scheduled = true;
      setTimeout(flush, 0);
    }
  };
  return {
    info: (fields) => emit("info", fields),
    warn: (fields) => emit("warn", fields),
    error: (fields) => emit("error", fields),
    flush,
  };
}

/** A logger that keeps lines in memory, for tests. */
export function createMemoryLogger(): Logger & { readonly lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const push = (level: string) => (fields: Record<string, unknown>) =>
    lines.push({ level, ...fields });
  return { lines, info: push("info"), warn: push("warn"), error: push("error"), flush() {} };
}
