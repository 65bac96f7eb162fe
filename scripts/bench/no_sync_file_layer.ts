/**
 * A file layer whose fdatasync and fsync return at once without syncing. UNSAFE — a crash or
 * power cut may lose pets already answered as created — and for the benchmark only: it measures
 * the service without the cost of durability. Production code never imports it.
 */
import { type FileLayer, nodeFileLayer } from "../../src/store/jsonl/file_layer.ts";

/** `files` (the real file system by default) with every sync skipped. */
export function noSyncFileLayer(files: FileLayer = nodeFileLayer): FileLayer {
  return {
    async open(path, flags) {
      const file = await files.open(path, flags);
      return {
        read: (buffer, offset, length, position) => file.read(buffer, offset, length, position),
        write: (buffer, offset, length, position) => file.write(buffer, offset, length, position),
        datasync: () => Promise.resolve(),
        sync: () => Promise.resolve(),
        truncate: (length) => file.truncate(length),
        stat: () => file.stat(),
        close: () => file.close(),
      };
    },
  };
}
