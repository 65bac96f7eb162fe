/**
 * The file operations the store uses, behind one small interface so tests can inject failures
 * (ENOSPC, EIO) and count fdatasync calls. The default is node:fs/promises, which Deno, Bun and
 * Node all provide.
 */
import { open } from "node:fs/promises";

/** An open file, as the store uses it (a subset of node's FileHandle). */
export interface DataFile {
  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesRead: number }>;
  write(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesWritten: number }>;
  datasync(): Promise<void>;
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  stat(): Promise<{ size: number }>;
  close(): Promise<void>;
}

/** Opens files; `flags` as in node:fs ("r", "r+", "a+", "wx"). */
export interface FileLayer {
  open(path: string, flags: string): Promise<DataFile>;
}

/** The real file system. */
export const nodeFileLayer: FileLayer = {
  open: (path, flags) => open(path, flags),
};
