/**
 * The docs page, `GET {BASE_PATH}/docs`, and its two assets: public (no key), all served by the
 * service itself from strings bundled into the code, so the page works offline and from the
 * single executable. A strict Content-Security-Policy allows only this origin: the page can load
 * nothing from elsewhere and can call only this API.
 */
import type { RequestContext } from "../http/context.ts";
import { DOCS_HTML } from "../docs/page_html.ts";
import { DOCS_SCRIPT } from "../docs/page_script.ts";
import { DOCS_CSS } from "../docs/page_style.ts";
import type { Reply } from "../http/responses.ts";
import type { Route } from "../http/router.ts";

const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; " +
  "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; " +
  "frame-ancestors 'none'";

function asset(text: string, contentType: string): () => Reply {
  return () => ({
    status: 200,
    body: text,
    headers: {
      "content-type": contentType,
      "cache-control": "no-cache",
      "content-security-policy": CONTENT_SECURITY_POLICY,
      "referrer-policy": "no-referrer",
    },
  });
}

/** `GET /docs`, `/docs/app.js` and `/docs/style.css`, relative to BASE_PATH. */
export function docsRoutes(): Route<RequestContext, Reply>[] {
  const options = { public: true };
  return [
    {
      method: "GET",
      pattern: "/docs",
      handler: asset(DOCS_HTML, "text/html; charset=utf-8"),
      options,
    },
    {
      method: "GET",
      pattern: "/docs/app.js",
      handler: asset(DOCS_SCRIPT, "text/javascript; charset=utf-8"),
      options,
    },
    {
      method: "GET",
      pattern: "/docs/style.css",
      handler: asset(DOCS_CSS, "text/css; charset=utf-8"),
      options,
    },
  ];
}
