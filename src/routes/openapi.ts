/**
 * `GET {BASE_PATH}/openapi.json`, `/docs` and its two assets: public, from strings in the code (so
 * offline and in the single executable); the docs' Content-Security-Policy allows only this origin.
 */
import type { AppRoute } from "../app/context.ts";
import type { Config } from "../config/config.ts";
import { DOCS_CSS, DOCS_HTML } from "../docs/page_html.ts";
import { DOCS_SCRIPT } from "../docs/page_script.ts";
import { type DocumentOptions, openApiDocument } from "../openapi/document.ts";
import { stringifyExact } from "../openapi/schema_to_json.ts";
import { PET_OPERATIONS } from "./pets.ts";

/** The document of the API's operations as served, and as the `openapi` sub-command prints it. */
export function openApiJson(options: DocumentOptions): string {
  return stringifyExact(openApiDocument(options, PET_OPERATIONS)) + "\n";
}

/** The docs page's security headers, on the page and its assets. */
const PAGE = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; " +
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; " +
    "frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
};

/** The document (its text built once), the docs page and the page's script and stylesheet. */
export function openapiRoutes(config: Config): AppRoute[] {
  const assets: [pattern: string, body: string, headers: Record<string, string>][] = [
    ["/openapi.json", openApiJson(config), {}],
    ["/docs", DOCS_HTML, { "content-type": "text/html; charset=utf-8", ...PAGE }],
    ["/docs/app.js", DOCS_SCRIPT, { "content-type": "text/javascript; charset=utf-8", ...PAGE }],
    ["/docs/style.css", DOCS_CSS, { "content-type": "text/css; charset=utf-8", ...PAGE }],
  ];
  return assets.map(([pattern, body, headers]) => ({
    method: "GET",
    pattern,
    handler: (context) => ({
      status: 200,
      body,
      headers: { ...context.headers.reply, ...headers, "cache-control": "no-cache" },
    }),
    options: { public: true },
  }));
}
