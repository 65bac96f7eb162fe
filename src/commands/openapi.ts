/** `openapi`: print the OpenAPI document and exit, without listening or touching data. */
import process from "node:process";
import { loadConfig } from "../config/config.ts";
import { openApiJson } from "../routes/openapi.ts";
import { writeStdout } from "./output.ts";

/** Prints the same document `GET {BASE_PATH}/openapi.json` serves with these settings. */
export async function runOpenapi(): Promise<number> {
  const { basePath, publicUrl } = loadConfig(process.env);
  await writeStdout(openApiJson({ basePath, publicUrl }));
  return 0;
}
