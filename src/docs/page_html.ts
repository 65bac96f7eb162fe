/**
 * The docs page's HTML. Assets are referenced relative to `{BASE_PATH}/docs`, so the page works
 * under any BASE_PATH and never leaves the service (no CDN: it must work on an offline VM).
 */

/** The HTML shell; `docs/app.js` fills it from `openapi.json`. */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Animal Store API · docs</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs/style.css">
<script src="docs/app.js" defer></script>
</head>
<body>
<header class="page-header">
  <h1 id="title">Animal Store API</h1>
  <p id="summary">Loading the OpenAPI document…</p>
  <p class="links"><a href="openapi.json">openapi.json</a> <span id="version"></span></p>
</header>
<main>
  <section id="auth" class="card">
    <label for="api-key">API key</label>
    <input id="api-key" type="password" autocomplete="off" spellcheck="false"
      placeholder="paste your key to try the operations">
    <p class="hint">Sent only to this service as <code>Authorization: Bearer …</code>; kept in
      this page only, never stored.</p>
  </section>
  <nav id="toc" aria-label="Operations"></nav>
  <section id="operations" aria-label="Operations"></section>
  <section id="schemas" aria-label="Schemas"></section>
</main>
<noscript><p>This page needs JavaScript; the document itself is at
  <a href="openapi.json">openapi.json</a>.</p></noscript>
</body>
</html>
`;
