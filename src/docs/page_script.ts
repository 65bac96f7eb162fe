/// <reference lib="dom" />
/**
 * The docs page's script: it renders `openapi.json` and lets a person try each operation with
 * their key, building the DOM from text only (nothing is parsed as HTML). Only the text of
 * `docsPageScript`, as the runtime compiled it, reaches the browser: it uses nothing declared
 * outside it but types.
 */

/** An object of openapi.json: the page reads the members it knows and only prints the others. */
// deno-lint-ignore no-explicit-any -- a parsed document, read by name as the renderers need
type Json = any;
/** An element's tag, attributes and children (`el`): falsy children are left out. */
type Tag = keyof HTMLElementTagNameMap;
type Attrs = Record<string, string | undefined>;
type Child = Node | string | false | null | undefined;
/** A request as sent, which "Revalidate" repeats. */
type Sent = { url: string; method: string; headers: Record<string, string>; body?: string };

/** Renders the page from `openapi.json`; runs in the browser only, as the text of `DOCS_SCRIPT`. */
function docsPageScript(): void {
  const apiBase = location.pathname.replace(/\/docs\/?$/, "");
  let doc: Json = {};
  const byId = (id: string) => document.getElementById(id) as HTMLInputElement;

  /** A new element: the key `text` sets its text, every other key an attribute. */
  function el<K extends Tag>(tag: K, attrs: Attrs = {}, children: Child[] = []) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (name === "text") node.textContent = value ?? "";
      else if (value !== undefined) node.setAttribute(name, value);
    }
    node.append(...children.filter((child): child is Node | string => !!child));
    return node;
  }

  const code = (text: string) => el("code", { text });

  // Descriptions mark code with backticks (U+0060): shown as <code>, still as text.
  function rich(text = ""): HTMLSpanElement {
    return el("span", {}, text.split("\u0060").map((part, i) => i % 2 ? code(part) : part));
  }

  // Integers beyond 2^53 stay exact where the reviver gets the source text, printed back with
  // JSON.rawJSON (the same proposal); elsewhere they are shown rounded.
  function parseExact(text: string): unknown {
    return JSON.parse(text, (_key: string, value: unknown, context?: { source?: string }) => {
      const source = context?.source ?? "";
      const exact = typeof value === "number" && !Number.isSafeInteger(value);
      return exact && /^-?[0-9]+$/.test(source) ? BigInt(source) : value;
    });
  }

  function toJson(value: unknown): string {
    const { rawJSON } = JSON as Json;
    return JSON.stringify(value, (_, v) => typeof v === "bigint" ? rawJSON(`${v}`) : v, 2);
  }

  /** Follows `$ref`s within the document (at most ten deep). */
  function resolve(item: Json): Json {
    for (let depth = 0; item?.$ref && depth < 10; depth++) {
      const parts: string[] = item.$ref.replace(/^#\//, "").split("/");
      item = parts.reduce((at, part) => at?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
    }
    return item;
  }

  const refName = (schema: Json) => schema?.$ref?.split("/").pop();

  function describeSchema(schema: Json = {}): string {
    const { type, format, minimum: min, maximum: max, minLength: fewest, maxLength: most } = schema;
    const parts = [
      schema.enum?.map((value: unknown) => JSON.stringify(value)).join(" | "),
      type === "array"
        ? "array of " + describeSchema(schema.items)
        : type && type + (format ? ` (${format})` : ""),
      (min ?? max) !== undefined && `from ${min ?? "…"} to ${max ?? "…"}`,
      (fewest ?? most) !== undefined && `${fewest || 0} to ${most || "…"} characters`,
      schema.pattern && `pattern ${schema.pattern}`,
      schema.default !== undefined && `default ${schema.default}`,
    ];
    return refName(schema) || parts.filter(Boolean).join(", ") || "any";
  }

  function table(headings: string[], rows: Child[][]): HTMLTableElement {
    return el("table", {}, [
      el("thead", {}, [el("tr", {}, headings.map((text) => el("th", { text })))]),
      el("tbody", {}, rows.map((row) => el("tr", {}, row.map((cell) => el("td", {}, [cell]))))),
    ]);
  }

  function fieldRow({ name, in: at, schema, required, description }: Json): Child[] {
    const type = describeSchema(schema);
    return [code(name), ...(at ? [at] : []), type, required ? "yes" : "no", rich(description)];
  }

  function schemaTable(given: Json): HTMLElement {
    const schema = resolve(given);
    if (schema?.type !== "object") return el("p", { text: describeSchema(schema) });
    const rows = Object.entries<Json>(schema.properties || {}).map(([name, property]) => {
      const { description } = resolve(property) || {};
      const required = schema.required?.includes(name);
      return fieldRow({ name, schema: property, required, description });
    });
    const closed = schema.additionalProperties === false;
    return el("div", {}, [
      table(["field", "type", "required", "notes"], rows),
      closed && el("p", { class: "muted", text: "No other fields are allowed." }),
    ]);
  }

  function renderOperation(path: string, method: string, operation: Json): HTMLElement {
    const { operationId: id, deprecated, summary, description, "x-sunset": sunset } = operation;
    const parameters: Json[] = (operation.parameters || []).map(resolve);
    const body = resolve(operation.requestBody)?.content?.["application/json"];
    const responses = Object.entries<Json>(operation.responses || {}).map(([status, given]) => {
      const { description, content, headers } = resolve(given) || {};
      const media = content?.["application/json"];
      const type = media && describeSchema(media.schema);
      const names = Object.keys(headers || {}).join(", ");
      return [el("strong", { text: status }), description, type, names];
    });
    const parameterRows = parameters.map(fieldRow);
    const sunsetDate = sunset && new Date(sunset).toUTCString();
    const className = "card operation" + (deprecated ? " deprecated" : "");
    return el("article", { class: className, id: "op-" + id, "data-operation-id": id }, [
      el("h2", {}, [
        el("span", { class: "method " + method, text: method.toUpperCase() }),
        el("code", { class: "path", text: apiBase + path }),
        el("span", { class: "op-id", text: id }),
        deprecated && el("span", { class: "badge deprecated", text: "Deprecated" }),
      ]),
      summary && el("p", { text: summary }),
      deprecated && el("p", { class: "sunset" }, [
        el("strong", { text: "Deprecated. " }),
        sunset ? "Sunset: " : "This operation will be removed.",
        sunset && el("time", { class: "sunset-date", datetime: sunset, text: sunsetDate }),
      ]),
      description && el("p", { class: "muted" }, [rich(description)]),
      parameters.length > 0 && el("h3", { text: "Parameters" }),
      parameters.length > 0 && table(["name", "in", "type", "required", "notes"], parameterRows),
      body && el("h3", { text: "Request body: " + (refName(body.schema) || "JSON") }),
      body && schemaTable(body.schema),
      el("h3", { text: "Responses" }),
      table(["status", "meaning", "body", "headers"], responses),
      tryIt(path, method, parameters, body),
    ]);
  }

  function tryIt(path: string, method: string, parameters: Json[], body: Json): HTMLElement {
    const verb = method.toUpperCase();
    const inputs: Record<string, HTMLInputElement> = {};
    const fields = el("div", { class: "fields" });
    for (const p of parameters) {
      inputs[p.name] = el("input", { name: p.name, placeholder: describeSchema(p.schema) });
      fields.append(el("label", { text: p.name + " (" + p.in + ")" }), inputs[p.name]);
    }
    const example = body && (body.example ?? resolve(Object.values(body.examples || {})[0])?.value);
    const bodyInput = body && el("textarea", { name: "body", "aria-label": "request body" });
    if (bodyInput) bodyInput.value = example === undefined ? "{}" : toJson(example);
    const send = el("button", { type: "button", text: "Send " + verb, "data-action": "send" });
    const secondary = { type: "button", class: "secondary", hidden: "" };
    const next = el("button", { ...secondary, text: "Next page" });
    // A request with its own If-None-Match bypasses the browser's cache: the 304 itself is shown.
    const again = { ...secondary, text: "Revalidate (If-None-Match)", "data-action": "revalidate" };
    const revalidate = el("button", again);
    const output = el("div", { class: "result", "aria-live": "polite" });
    let lastEtag: string | null = null;
    // For "Revalidate": the cursor input may hold the next page's cursor by now.
    let lastSent: Sent | undefined;

    function request(): void {
      const query = new URLSearchParams();
      const headers: Record<string, string> = {};
      for (const { name, in: place } of parameters) {
        const value = inputs[name].value;
        if (value && place === "query") query.append(name, value);
        if (value && place === "header") headers[name] = value;
      }
      const key = byId("api-key").value.trim();
      if (key) headers.Authorization = "Bearer " + key;
      if (bodyInput) headers["Content-Type"] = "application/json";
      const value = (name: string) => encodeURIComponent(inputs[name]?.value ?? "");
      const search = String(query);
      const url = apiBase + path.replace(/\{([^}]+)\}/g, (_, name) => value(name)) +
        (search ? "?" + search : "");
      dispatch({ url, method: verb, headers, body: bodyInput?.value });
    }

    function dispatch(sent: Sent): void {
      lastSent = sent;
      const line = sent.method + " " + sent.url;
      output.replaceChildren(el("p", { class: "muted", text: line + " …" }));
      fetch(sent.url, sent)
        .then(async (response) => show(line, response, await response.text()))
        .catch((error: Error) => {
          const text = "Request failed: " + error.message;
          output.replaceChildren(el("p", { class: "error-box", text }));
        });
    }

    function show(line: string, response: Response, text: string): void {
      const { status, headers } = response;
      const headerLines = [...headers].map(([name, value]) => name + ": " + value);
      const note =
        `Not modified: the copy tagged ${lastEtag} is still current, so no body was sent.`;
      let pretty = text;
      try {
        pretty = toJson(parseExact(text));
      } catch {
        // not JSON: shown as is
      }
      output.replaceChildren(
        el("p", { class: "muted", text: line }),
        el("p", {
          class: "status-line " + (response.ok || status === 304 ? "ok" : "error"),
          "data-status": String(status),
          text: status + " " + response.statusText,
        }),
        el("h3", { text: "Response headers" }),
        el("pre", { class: "response-headers", text: headerLines.join("\n") }),
        el("h3", { text: "Response body" }),
        el("pre", { class: "response-body", text: pretty }),
      );
      if (status === 304) output.append(el("p", { class: "muted not-modified", text: note }));
      lastEtag = headers.get("etag") || lastEtag;
      revalidate.hidden = !(lastEtag && inputs["If-None-Match"]);
      const link = /<([^>]*)>\s*;\s*rel="next"/.exec(headers.get("link") || "");
      next.hidden = !(link && inputs.cursor);
      if (link && inputs.cursor) {
        inputs.cursor.value = new URL(link[1], location.href).searchParams.get("cursor") || "";
      }
    }

    send.onclick = next.onclick = request;
    revalidate.onclick = () => {
      const headers = { ...lastSent?.headers, "If-None-Match": lastEtag ?? "" };
      if (lastSent) dispatch({ ...lastSent, headers });
    };
    const bodyLabel = bodyInput && el("label", { text: "body (application/json)" });
    const parts = [fields, bodyLabel, bodyInput, send, next, revalidate, output];
    return el("section", { class: "try" }, [el("h3", { text: "Try it" }), ...parts]);
  }

  function render(text: string): void {
    doc = parseExact(text);
    const info = doc.info || {};
    byId("title").textContent = info.title || "API";
    byId("summary").replaceChildren(rich(info.description || info.summary));
    byId("version").textContent = "· version " + info.version + " · OpenAPI " + doc.openapi;
    for (const [path, item] of Object.entries<Json>(doc.paths || {})) {
      for (const method of ["get", "put", "post", "patch", "delete"]) {
        const operation = item[method];
        if (!operation) continue;
        const { operationId, deprecated } = operation;
        const label = method.toUpperCase() + " " + path + (deprecated ? " (deprecated)" : "");
        byId("toc").append(el("a", { href: "#op-" + operationId, text: label }));
        byId("operations").append(renderOperation(path, method, operation));
      }
    }
    const schemas = Object.entries<Json>(doc.components?.schemas || {}).map(([name, schema]) =>
      el("div", { class: "card schema", id: "schema-" + name }, [
        el("h3", { text: name }),
        schema.description && el("p", { text: schema.description }),
        schemaTable(schema),
      ])
    );
    byId("schemas").append(el("h2", { text: "Schemas" }), ...schemas);
    document.body.setAttribute("data-ready", "true");
  }

  fetch("openapi.json").then((response) => {
    if (!response.ok) throw new Error("openapi.json answered " + response.status);
    return response.text();
  }).then(render).catch((error: Error) => {
    byId("summary").textContent = "Cannot show the API: " + error.message;
    document.body.setAttribute("data-ready", "error");
  });
}

/** The docs page's script, served as `{BASE_PATH}/docs/app.js`: `docsPageScript`, called once. */
export const DOCS_SCRIPT = `(${docsPageScript.toString()})();\n`;
