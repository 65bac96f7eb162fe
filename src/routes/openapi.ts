/**
 * `GET {BASE_PATH}/openapi.json`, `/docs` and its two assets: public, from strings in the code (so
 * offline and in the single executable); the docs' Content-Security-Policy allows only this origin.
 */
import type { AppRoute } from "../app/context.ts";
import type { Config } from "../config/config.ts";
import { DOCS_CSS, DOCS_HTML } from "../docs/page_html.ts";
import { DOCS_SCRIPT } from "../docs/page_script.ts";
import { jsonReply } from "../http/responses.ts";
import { type DocumentOptions, openApiDocument } from "../openapi/document.ts";
import { stringifyExact } from "../openapi/schema_to_json.ts";
import type { Reply } from "../runtime/contract.ts";
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

const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; " +
  "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; " +
  "frame-ancestors 'none'";

const ASSETS: [string, string, string][] = [
  ["/docs", DOCS_HTML, "text/html; charset=utf-8"],
  ["/docs/app.js", DOCS_SCRIPT, "text/javascript; charset=utf-8"],
  ["/docs/style.css", DOCS_CSS, "text/css; charset=utf-8"],
];

export function docsRoutes(): AppRoute[] {
  return ASSETS.map(([pattern, text, contentType]) => ({
    method: "GET",
    pattern,
    handler: (context): Reply => ({
      status: 200,
      body: text,
      headers: {
        ...context.headers.reply,
        "content-type": contentType,
        "cache-control": "no-cache",
        "content-security-policy": CONTENT_SECURITY_POLICY,
        "referrer-policy": "no-referrer",
      },
    }),
    options: { public: true },
  }));
}
