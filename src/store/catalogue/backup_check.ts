/**
 * The framing of every backup: a first line, the pet lines, and a check line with their count and
 * SHA-256, computed as the lines pass (so a streamed backup has it too).
 */
import { createHash } from "node:crypto";
import { BACKUP_LINE, checkLine } from "./line_format.ts";
import type { ByteSink } from "./read_records.ts";

const encoder = new TextEncoder();

/** Writes a backup to a sink: `begin`, then pet lines (`write`), then `end`, or nothing more. */
export class CheckedBackup {
  readonly #sha256 = createHash("sha256");

  constructor(private readonly sink: ByteSink) {}

  begin(): Promise<void> {
    return this.sink(encoder.encode(BACKUP_LINE));
  }

  /** Whole pet lines, each with its newline. */
  write(bytes: Uint8Array): Promise<void> {
    this.#sha256.update(bytes);
    return this.sink(bytes);
  }

  /** Only once the copy is complete: a backup that fails half-way is refused as cut short. */
  end(pets: number): Promise<void> {
    return this.sink(encoder.encode(checkLine(pets, this.#sha256.digest("hex"))));
  }
}
