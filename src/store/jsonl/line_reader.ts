/**
 * Streams a JSON-lines file in chunks of complete lines, so a file of any size is read without
 * ever becoming one string (NeDB fails near V8's 512 MB string limit). The buffer is reused for
 * the next chunk: a caller copies what it keeps.
 */
import type { DataFile } from "./file_layer.ts";

const NEWLINE = 0x0a;

/** Read settings. */
export interface LineReaderOptions {
  /** Bytes read per call. */
  readonly chunkBytes?: number;
  /**
   * A final fragment longer than this stops the read early: damage if a newline follows, else a
   * torn tail. Complete lines are the caller's to measure.
   */
  readonly maxLineBytes: number;
}

/** How reading ended. */
export type ReadEnd =
  | { readonly kind: "complete"; readonly length: number }
  | { readonly kind: "torn_tail"; readonly offset: number; readonly length: number }
  | { readonly kind: "line_too_long"; readonly offset: number }
  | { readonly kind: "stopped" };

/**
 * Calls `onChunk(bytes, end, offset)` for each run of complete lines: bytes[0, end) ends with a
 * newline and starts at file offset `offset`. Returning false stops the read. Bytes after the
 * last newline are a torn tail; reading never changes the file.
 */
export async function readLines(
  file: DataFile,
  onChunk: (bytes: Uint8Array, end: number, offset: number) => boolean,
  options: LineReaderOptions,
): Promise<ReadEnd> {
  const chunkBytes = options.chunkBytes ?? 4 * 1024 * 1024;
  // One buffer for the whole read: garbage chunks would raise the peak RSS of a large replay.
  let bytes = new Uint8Array(chunkBytes);
  let carried = 0;
  let offset = 0;
  let position = 0;
  for (;;) {
    if (bytes.length - carried < chunkBytes / 2) {
      const larger = new Uint8Array(bytes.length * 2);
      larger.set(bytes.subarray(0, carried));
      bytes = larger;
    }
    const { bytesRead } = await file.read(bytes, carried, bytes.length - carried, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const filled = carried + bytesRead;
    const end = bytes.lastIndexOf(NEWLINE, filled - 1) + 1;
    if (end === 0) {
      carried = filled;
      if (carried > options.maxLineBytes) return await skipLongLine(file, offset, position);
      continue;
    }
    if (!onChunk(bytes, end, offset)) return { kind: "stopped" };
    bytes.copyWithin(0, end, filled);
    carried = filled - end;
    offset += end;
  }
  return carried > 0
    ? { kind: "torn_tail", offset, length: carried }
    : { kind: "complete", length: offset };
}

/** A line over the limit with no newline yet: damage if a newline follows, else a torn tail. */
async function skipLongLine(file: DataFile, offset: number, position: number): Promise<ReadEnd> {
  const bytes = new Uint8Array(64 * 1024);
  for (;;) {
    const { bytesRead } = await file.read(bytes, 0, bytes.length, position);
    if (bytesRead === 0) return { kind: "torn_tail", offset, length: position - offset };
    if (bytes.subarray(0, bytesRead).includes(NEWLINE)) return { kind: "line_too_long", offset };
    position += bytesRead;
  }
}
