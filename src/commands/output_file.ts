/**
 * Where `backup` writes: a file made atomically and durably, or stdout (`-`). A crash never
 * leaves half a backup under the file's name: the bytes go to a temporary name beside it, are
 * fdatasync'd, renamed into place, and the directory is fsync'd so the name itself is durable.
 */
import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import process from "node:process";
import type { ByteSink } from "../store/jsonl/record_copy.ts";
import { writeFully } from "../store/jsonl/file_layer.ts";

/**
 * Runs `produce` with a sink into a temporary file beside `path`; when it returns `ok: true` the
 * file is made durable and renamed to `path`, otherwise the temporary file is removed.
 */
export async function writeFileAtomically<R extends { ok: boolean }>(
  path: string,
  produce: (sink: ByteSink) => Promise<R>,
): Promise<R> {
  const temporary = join(dirname(path), `.${basename(path)}.partial-${process.pid}`);
  const file = await open(temporary, "w");
  let done = false;
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
    done = true;
    const directory = await open(dirname(path), "r");
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
    return result;
  } finally {
    if (!done) {
      await file.close().catch(() => {});
      await unlink(temporary).catch(() => {});
    }
  }
}

/** A sink into stdout that waits until each chunk is handed over (backpressure for a pipe). */
export function stdoutSink(): ByteSink {
  return (bytes) =>
    new Promise((resolve, reject) => {
      // A copy: the caller reuses its buffer once this settles, and a runtime may still hold it.
      process.stdout.write(bytes.slice(), (error) => (error ? reject(error) : resolve()));
    });
}
