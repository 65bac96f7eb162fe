/** `openapi`: print the document `GET {BASE_PATH}/openapi.json` serves, touching nothing. */
import process from "node:process";
import { loadConfig } from "../config/config.ts";
import { openApiJson } from "../routes/openapi.ts";
import { writeStdout } from "./output.ts";

export async function runOpenapi(): Promise<number> {
  await writeStdout(openApiJson(loadConfig(process.env)));
  return 0;
}
