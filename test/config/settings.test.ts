import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { SETTINGS } from "../../src/config/settings.ts";

/** The rows of the Settings table of docs/configuration.md, in order. */
function documentedSettings(): { name: string; fallback: string | undefined; values: string }[] {
  const page = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
  const table = page.split("\n## Settings\n")[1].split("\n## ")[0];
  return table.split("\n").filter((line) => line.startsWith("| `")).map((line) => {
    const [name, fallback, values] = line.split("|").slice(1, 4).map((cell) => cell.trim());
    // A default is a code span (`8080`, maybe followed by a note) or a dash for none.
    assert.match(fallback, /^(`[^`]*`|—)/, `${name}: the default cell starts with a value or —`);
    return {
      name: name.replaceAll("`", ""),
      fallback: /^`([^`]*)`/.exec(fallback)?.[1],
      values: values.replaceAll("`", ""),
    };
  });
}

describe("SETTINGS", () => {
  it("are the settings of docs/configuration.md, in the same order", () => {
    const documented = documentedSettings().map((row) => row.name);
    assert.deepEqual(documented, Object.keys(SETTINGS));
  });

  it("have the defaults and values that docs/configuration.md gives them", () => {
    for (const row of documentedSettings()) {
      const setting = SETTINGS[row.name as keyof typeof SETTINGS];
      assert.equal(row.fallback, setting.default, row.name);
      assert.ok(row.values.startsWith(setting.values), `${row.name}: ${row.values}`);
    }
  });
});
