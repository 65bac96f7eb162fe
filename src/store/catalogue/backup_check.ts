/**
 * The check a backup carries, as PostgreSQL's backup manifest lets `pg_verifybackup` prove a base
 * backup whole: a backup opens with `{"type":"backup","v":1}` and closes with a check line that
 * counts its pet lines and gives the SHA-256 of their bytes (format.ts). The digest is computed as
 * the lines pass on their way out, so a streamed backup (`backup -`, through gzip and back) carries
 * it too; read_records.ts proves it on every read. Both ways of taking a backup (the file's, and the
 * PostgreSQL export) write through this one framing.
 */
import { createHash } from "node:crypto";
import { BACKUP_LINE, checkLine } from "./line_format.ts";
import type { ByteSink } from "./read_records.ts";

const encoder = new TextEncoder();

/** Writes a backup to a sink: `begin`, then pet lines (`write`), then `end`, or nothing more. */
export class CheckedBackup {
  readonly #sink: ByteSink;
  readonly #sha256 = createHash("sha256");

  constructor(sink: ByteSink) {
    this.#sink = sink;
  }

  /** The backup's first line, which announces the check. */
  begin(): Promise<void> {
    return this.#sink(encoder.encode(BACKUP_LINE));
  }

  /** Whole pet lines, each with its newline. */
  write(bytes: Uint8Array): Promise<void> {
    this.#sha256.update(bytes);
    return this.#sink(bytes);
  }

  /**
   * The check line, for the `pets` lines written: only once the copy is known complete. A backup
   * that fails half-way never gets one, so restore refuses it as cut short.
   */
  end(pets: number): Promise<void> {
    return this.#sink(encoder.encode(checkLine(pets, this.#sha256.digest("hex"))));
  }
}
