/** Shared helpers of the store tests: temp directories laid out from a map, an instrumented file layer. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { DataFile, FileLayer } from "../../src/store/jsonl/file_layer.ts";
import { nodeFileLayer } from "../../src/store/jsonl/file_layer.ts";
import { BACKUP_LINE, checkLine, petRecordBytes } from "../../src/store/catalogue/line_format.ts";
import { createHash } from "node:crypto";
import type { NewPet } from "../../src/schemas/pet.ts";
import type { ByteSource } from "../../src/store/catalogue/read_records.ts";
import type { PageQuery } from "../../src/schemas/page.ts";
import type { IdempotencyClaim, PetStore, StoredPet } from "../../src/store/store.ts";

const made: string[] = [];

/** A fresh temp directory holding `layout` ({ "data/pets.jsonl": "…" }); removed by `removeTempDirs`. */
export function tempDir(layout: Record<string, string | Uint8Array> = {}): string {
  const root = mkdtempSync(join(tmpdir(), "store-test-"));
  made.push(root);
  for (const [path, content] of Object.entries(layout)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** Removes every directory made by `tempDir`. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The bytes of a file. */
export function bytesOf(path: string): Uint8Array {
  return new Uint8Array(readFileSync(path));
}

/** One record line, as the store writes it. */
export function line(id: number, pet: Partial<NewPet> = {}, claim?: IdempotencyClaim): string {
  const record = petRecordBytes(id, { name: `Pet ${id}`, categoryId: BigInt(id), ...pet }, claim);
  return new TextDecoder().decode(record);
}

/** A backup of these pet lines, as `backup` writes it: its first line, the lines, its check. */
export function backupOf(petLines: string): string {
  const digest = createHash("sha256").update(petLines).digest("hex");
  const pets = petLines === "" ? 0 : petLines.split("\n").length - 1;
  return BACKUP_LINE + petLines + checkLine(pets, digest);
}

/** An errno-style error, as node:fs throws. */
export function errno(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated failure, ${syscall}`), { code, syscall });
}

/** Hooks run before the data file's operations; a hook that throws makes the operation fail. */
export interface FileHooks {
  /** May write some of the bytes itself (a partial write) before throwing. */
  write?: (
    file: DataFile,
    bytes: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ) => Promise<void> | void;
  datasync?: () => Promise<void> | void;
  truncate?: (length: number) => Promise<void> | void;
}

/** A file layer that counts the data file's writes and fdatasyncs and runs hooks before them. */
export function instrumentedFiles(
  hooks: FileHooks = {},
): FileLayer & { writes: number; datasyncs: number } {
  const layer = {
    writes: 0,
    datasyncs: 0,
    async open(path: string, flags: string): Promise<DataFile> {
      const file = await nodeFileLayer.open(path, flags);
      if (!path.endsWith("pets.jsonl")) return file;
      return {
        read: (...args) => file.read(...args),
        stat: () => file.stat(),
        sync: () => file.sync(),
        close: () => file.close(),
        async write(bytes, offset, length, position) {
          layer.writes++;
          await hooks.write?.(file, bytes, offset, length, position);
          return file.write(bytes, offset, length, position);
        },
        async datasync() {
          layer.datasyncs++;
          await hooks.datasync?.();
          return file.datasync();
        },
        async truncate(length) {
          await hooks.truncate?.(length);
          return file.truncate(length);
        },
      };
    },
  };
  return layer;
}

/**
 * A source that hands out `content` (a string is taken as its UTF-8 bytes) in pieces of at most
 * `piece` bytes, as a file or a copy stream would.
 */
export function byteSource(content: string | Uint8Array, piece = Infinity): ByteSource {
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  let at = 0;
  return {
    read(into, offset, length) {
      const count = Math.min(length, piece, bytes.length - at);
      into.set(bytes.subarray(at, at + count), offset);
      at += count;
      return Promise.resolve(count);
    },
  };
}

/** A promise with its resolve function (Node 20 has no Promise.withResolvers). */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * A page of `listJson` as its pets: the body split at the commas between the pets' texts (each
 * text exactly as stored, so int64 categoryIds keep their digits), and the page's `hasMore`.
 */
export async function listPets(
  store: Pick<PetStore, "listJson">,
  query: PageQuery,
): Promise<{ pets: StoredPet[]; hasMore: boolean }> {
  const page = await store.listJson(query);
  const text = new TextDecoder().decode(page.body);
  const pets: StoredPet[] = [];
  let depth = 0;
  let inString = false;
  let start = 1;
  for (let i = 1; i < text.length - 1; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === "{") {
      depth++;
    } else if (char === "}" && --depth === 0) {
      const json = text.slice(start, i + 1);
      pets.push({ id: JSON.parse(json).id, json });
      start = i + 2;
    }
  }
  return { pets, hasMore: page.hasMore };
}

/** The status in a pet's JSON text (undefined when it has none). */
export function statusOf(pet: StoredPet | undefined): string | undefined {
  return pet === undefined ? undefined : JSON.parse(pet.json).status;
}
