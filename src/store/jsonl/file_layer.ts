/** The store's file operations behind one interface, so tests can inject failures and count syncs. */
import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import process from "node:process";
import { errorCodeOf } from "../../observe/error_code.ts";
import type { ReadableFile } from "../catalogue/read_records.ts";

/** An open file, as the store uses it (a subset of node's FileHandle). */
export interface DataFile extends ReadableFile {
  write(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesWritten: number }>;
  datasync(): Promise<void>;
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  stat(): Promise<FileIdentity>;
  close(): Promise<void>;
}

/** What tells one file from another, and its length. */
export type FileIdentity = { readonly dev: number; readonly ino: number; readonly size: number };

/** Opens files; `flags` as in node:fs ("r", "r+", "a+", "wx"). */
export type FileLayer = { open(path: string, flags: string): Promise<DataFile> };

export const nodeFileLayer: FileLayer = { open: (path, flags) => open(path, flags) };

/** A write may take fewer bytes than asked (a signal, a full pipe). */
export async function writeFully(file: DataFile, bytes: Uint8Array, at: number): Promise<void> {
  for (let done = 0; done < bytes.length;) {
    done += (await file.write(bytes, done, bytes.length - done, at + done)).bytesWritten;
  }
}

/** Temporary name, fdatasync, rename, directory fsync: a crash leaves no file or the whole one. */
export async function installFile<R extends { readonly ok: boolean }>(
  path: string,
  produce: (sink: (bytes: Uint8Array) => Promise<void>) => Promise<R>,
): Promise<R> {
  const temporary = join(dirname(path), `.${basename(path)}.partial-${process.pid}`);
  const file = await nodeFileLayer.open(temporary, "w");
  let installed = false;
  try {
    let position = 0;
    const result = await produce(async (bytes) => {
      await writeFully(file, bytes, position);
      position += bytes.length;
    });
    if (!result.ok) return result;
    await file.datasync();
    await file.close();
    await rename(temporary, path);
    installed = true;
    await syncDirectory(dirname(path));
    return result;
  } finally {
    if (!installed) {
      await file.close().catch(() => {});
      await unlink(temporary).catch(() => {});
    }
  }
}

export function openIfExists(path: string, flags: string, files = nodeFileLayer) {
  return files.open(path, flags).catch((error) => {
    if (errorCodeOf(error) === "ENOENT") return undefined;
    throw error;
  });
}

/** fsyncs a directory: a name created or renamed in it is durable only then. */
export async function syncDirectory(path: string, files: FileLayer = nodeFileLayer): Promise<void> {
  const directory = await files.open(path, "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}
