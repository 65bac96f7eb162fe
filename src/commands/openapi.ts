/** `openapi`: print the OpenAPI document and exit, without listening or touching data. */
import process from "node:process";
import { ConfigError, loadConfig } from "../config/config.ts";
import { openApiJson } from "../openapi/document.ts";

/** Prints the same document `GET {BASE_PATH}/openapi.json` serves with these settings. */
export async function runOpenapi(): Promise<number> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`Cannot print the OpenAPI document: ${error.message}\n`);
    return 2;
  }
  const text = openApiJson({ basePath: config.basePath, publicUrl: config.publicUrl });
  // Wait for the write: a large document piped to a slow reader must not be cut by the exit.
  await new Promise<void>((resolve, reject) =>
    process.stdout.write(text, (error) => error ? reject(error) : resolve())
  );
  return 0;
}
