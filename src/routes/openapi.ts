/** `GET {BASE_PATH}/openapi.json`: the OpenAPI document, public (no key) like the docs page. */
import type { AppRoute } from "../app/context.ts";
import type { Config } from "../config/config.ts";
import { jsonReply } from "../http/responses.ts";
import { type DocumentOptions, openApiDocument } from "../openapi/document.ts";
import { stringifyExact } from "../openapi/schema_to_json.ts";
import { PET_OPERATIONS } from "./pets.ts";

/** The document of the API's operations as served, and as the `openapi` sub-command prints it. */
export function openApiJson(options: DocumentOptions): string {
  return stringifyExact(openApiDocument(options, PET_OPERATIONS)) + "\n";
}

/** The document route; its text is built once. */
export function openapiRoutes(deps: { config: Config }): AppRoute[] {
  const text = openApiJson({ basePath: deps.config.basePath, publicUrl: deps.config.publicUrl });
  return [{
    method: "GET",
    pattern: "/openapi.json",
    handler: (context) => jsonReply(context.headers.reply, text, { "cache-control": "no-cache" }),
    options: { public: true },
  }];
}
