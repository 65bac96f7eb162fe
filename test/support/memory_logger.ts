import type { Logger, RequestLine } from "../../src/observe/log.ts";

/** A logger that keeps lines in memory, in the shape the JSON logger writes them. */
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
    flush: () => Promise.resolve(),
    droppedLines: () => 0,
  };
}
