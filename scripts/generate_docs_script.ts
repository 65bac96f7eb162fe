/**
 * Builds `src/docs/page_script.ts`, the docs page's script as a string, from its TypeScript source
 * `src/docs/page/script.ts`: esbuild strips the types and wraps the code in a function. The
 * result is checked in, so every runtime, the Node bundle and the single executable serve the
 * same text with no build step and no file read at run time; `test/docs/page_script.test.ts`
 * fails when it is out of date with its source.
 *
 *   node_modules/.bin/deno run -A scripts/generate_docs_script.ts   # after editing the source
 */
import { readFile, writeFile } from "node:fs/promises";
import { transform } from "esbuild";

const ROOT = new URL("../", import.meta.url);

/** The browser script's source, relative to the repository. */
export const SOURCE_PATH = "src/docs/page/script.ts";

/** The generated module, relative to the repository. */
export const MODULE_PATH = "src/docs/page_script.ts";

/** The text `MODULE_PATH` must hold for the current source. */
export async function docsScriptModule(): Promise<string> {
  const source = await readFile(new URL(SOURCE_PATH, ROOT), "utf8");
  const { code } = await transform(source, {
    loader: "ts",
    format: "iife",
    target: "es2020",
    sourcefile: SOURCE_PATH,
  });
  // A template literal holds the script verbatim once `\`, backtick and `${` are escaped.
  const literal = code.replaceAll("\\", "\\\\").replaceAll("`", "\\`").replaceAll("${", "\\${");
  return `// Generated from ${SOURCE_PATH} by scripts/generate_docs_script.ts: do not edit.

/** The docs page's script (ES2020), served as \`{BASE_PATH}/docs/app.js\`. */
export const DOCS_SCRIPT = \`${literal}\`;
`;
}

if (import.meta.main) {
  await writeFile(new URL(MODULE_PATH, ROOT), await docsScriptModule());
  console.log(`${MODULE_PATH}: written from ${SOURCE_PATH}`);
}
