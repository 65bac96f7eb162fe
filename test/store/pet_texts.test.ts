import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PetTexts } from "../../src/store/jsonl/pet_texts.ts";

describe("PetTexts", () => {
  it("gives each position its own text when positions share a slot of the decoded texts kept", () => {
    // 3000 pets in one segment: positions 5, 1029 and 2053 fall on the same slot of the 1024
    // texts kept, so reading them in turn replaces the slot's text every time.
    const texts = new PetTexts();
    const lines = Array.from(
      { length: 3000 },
      (_, id) => `{"id":${id + 1},"name":"Pet ${id + 1} é"}`,
    );
    const bytes = new TextEncoder().encode(lines.join(""));
    const segment = texts.addSegment(bytes);
    let start = 0;
    for (const line of lines) {
      const end = start + new TextEncoder().encode(line).byteLength;
      texts.add(segment, start, end);
      start = end;
    }
    for (let round = 0; round < 3; round++) {
      for (const position of [5, 1029, 2053, 5, 5, 2053]) {
        assert.equal(texts.text(position), lines[position], `position ${position}`);
      }
    }
    for (let position = 0; position < lines.length; position += 7) {
      assert.equal(texts.text(position), lines[position]);
    }
  });
});
