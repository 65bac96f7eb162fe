/**
 * Writes `DATA_DIR/pets.jsonl` for the benchmark as our store would have written it (one
 * `petRecordBytes` line per pet), with the same pets the peers hold (`peers/pet_fixture.ts`).
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { petRecordBytes } from "../../src/store/jsonl/format.ts";
import { benchPet } from "./peers/pet_fixture.ts";

const decoder = new TextDecoder();

/** Writes `count` pets into `dir/pets.jsonl`; returns the file's size in bytes. */
export function writePetFile(dir: string, count: number): number {
  const fd = openSync(join(dir, "pets.jsonl"), "w");
  let bytes = 0;
  try {
    let lines = "";
    for (let id = 1; id <= count; id++) {
      const pet = benchPet(id);
      lines += decoder.decode(petRecordBytes(id, {
        name: pet.name,
        categoryId: BigInt(pet.categoryId),
        ...(pet.status === undefined ? {} : { status: pet.status }),
      }));
      if (id % 50_000 === 0 || id === count) {
        bytes += writeSync(fd, lines);
        lines = "";
      }
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}
