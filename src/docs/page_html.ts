/**
 * The docs page's HTML and stylesheet. Assets are referenced relative to `{BASE_PATH}/docs`, so
 * the page works under any BASE_PATH and never leaves the service (no CDN: offline VMs).
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

/** The stylesheet, served as `{BASE_PATH}/docs/style.css`. */
export const DOCS_CSS = `:root {
  --text: #1c2430; --muted: #5b6675; --line: #d9dee5; --bg: #f6f8fa; --card: #fff;
  --get: #0b6bcb; --post: #1a7f37; --deprecated: #9a6700; --bad: #cf222e;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--text);
}
body { margin: 0; background: var(--bg); line-height: 1.45; }
main, .page-header { max-width: 60rem; margin: 0 auto; padding: 0 1rem; }
.page-header { padding-top: 1.5rem; }
h1 { margin: 0 0 .25rem; font-size: 1.8rem; }
h2 { font-size: 1.15rem; margin: 0; display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
h3 { font-size: .95rem; margin: 1.1rem 0 .4rem; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
code, pre, input, textarea { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem; margin: 1rem 0; }
#auth { display: grid; grid-template-columns: auto 1fr; gap: .5rem 1rem; align-items: center; }
#auth .hint { grid-column: 1 / -1; margin: 0; color: var(--muted); font-size: .85rem; }
input, textarea { border: 1px solid var(--line); border-radius: 6px; padding: .4rem .5rem; width: 100%; box-sizing: border-box; }
textarea { min-height: 6rem; }
#toc { display: flex; gap: .5rem; flex-wrap: wrap; }
#toc a { text-decoration: none; border: 1px solid var(--line); border-radius: 999px; padding: .15rem .7rem; background: var(--card); color: var(--text); }
.method { font-size: .8rem; font-weight: 700; color: #fff; border-radius: 4px; padding: .15rem .5rem; }
.method.get { background: var(--get); } .method.post { background: var(--post); }
.operation.deprecated .path { text-decoration: line-through; color: var(--muted); }
.badge { font-size: .75rem; font-weight: 600; border-radius: 999px; padding: .1rem .6rem; border: 1px solid; }
.badge.deprecated { color: var(--deprecated); border-color: var(--deprecated); }
.op-id { color: var(--muted); font-weight: 400; font-size: .9rem; }
.sunset { background: #fff8c5; border: 1px solid #eac54f; border-radius: 6px; padding: .5rem .75rem; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); padding: .35rem .5rem; }
th { color: var(--muted); font-weight: 600; }
pre { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: .6rem; overflow-x: auto; margin: .3rem 0; white-space: pre-wrap; word-break: break-word; }
.try { border-top: 1px dashed var(--line); margin-top: 1rem; padding-top: .5rem; }
.try .fields { display: grid; grid-template-columns: 12rem 1fr; gap: .4rem .75rem; align-items: center; }
button { font: inherit; border: 1px solid var(--line); background: var(--text); color: #fff; border-radius: 6px; padding: .4rem 1rem; cursor: pointer; margin: .6rem .5rem 0 0; }
button.secondary { background: var(--card); color: var(--text); }
.status-line { font-weight: 700; margin: .6rem 0 .2rem; }
.status-line.ok { color: var(--post); } .status-line.error { color: var(--bad); }
.muted { color: var(--muted); }
.error-box { color: var(--bad); }
`;
