/** `openapi`: print the OpenAPI document and exit, without listening or touching data. */
import process from "node:process";
import { commandConfig } from "./command_config.ts";
import { openApiJson } from "../routes/openapi.ts";

/** Prints the same document `GET {BASE_PATH}/openapi.json` serves with these settings. */
export async function runOpenapi(): Promise<number> {
  const config = commandConfig("print the OpenAPI document");
  if (config === undefined) return 2;
  const text = openApiJson({ basePath: config.basePath, publicUrl: config.publicUrl });
  // Wait for the write: a large document piped to a slow reader must not be cut by the exit.
  await new Promise<void>((resolve, reject) =>
    process.stdout.write(text, (error) => error ? reject(error) : resolve())
  );
  return 0;
}
