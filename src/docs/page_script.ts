/// <reference lib="dom" />
/**
 * The docs page's script, run in the browser as `{BASE_PATH}/docs/app.js`: it renders
 * `openapi.json` (same directory as the page) and lets a person try each operation with their key.
 * Plain DOM building with `textContent` only: nothing from the document or a response is ever
 * parsed as HTML. No framework, no CDN.
 *
 * The script is served as the text of one function, `docsPageScript`, called once. The text is
 * what the runtime itself compiled from this TypeScript (Deno's and Bun's transpilers from source,
 * esbuild in the Node bundle, `bun build` in the single executable), so there is no generated copy
 * to keep in step and no build step before `deno task start`. Only the function's text reaches
 * the browser, so it must use nothing declared outside it: besides the function, this module
 * holds types and `DOCS_SCRIPT` only.
 */

/** The parts of a JSON Schema the page shows. */
interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  items?: Schema;
  minimum?: number | bigint;
  maximum?: number | bigint;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: unknown;
}

/** A `content` entry: its schema and examples. */
interface Media {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { $ref?: string; value?: unknown }>;
}

/** A parameter, after `$ref`s are followed. */
interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

/** A request body or a response, after `$ref`s are followed. */
interface Message {
  $ref?: string;
  description?: string;
  content?: Record<string, Media>;
  headers?: Record<string, unknown>;
}

/** An operation of `paths`. */
interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  deprecated?: boolean;
  "x-sunset"?: string;
  parameters?: Parameter[];
  requestBody?: Message;
  responses?: Record<string, Message>;
}

/** The parts of an OpenAPI document the page shows. */
interface OpenApiDocument {
  openapi?: string;
  info?: { title?: string; summary?: string; description?: string; version?: string };
  paths?: Record<string, Record<string, Operation | undefined>>;
  components?: { schemas?: Record<string, Schema> };
}

/** What `el` sets on a new element. */
interface ElementOptions {
  className?: string;
  text?: unknown;
  attrs?: Record<string, string>;
}

type Child = Node | string | null | undefined;

/** A request as sent: "Revalidate" repeats it. */
interface SentRequest {
  url: string;
  init: { method: string; headers: Record<string, string>; body?: string };
}

/** Renders the page from `openapi.json`; runs in the browser only, as the text of `DOCS_SCRIPT`. */
function docsPageScript(): void {
  const apiBase = location.pathname.replace(/\/docs\/?$/, "");
  let doc: OpenApiDocument = {};

  function byId<T extends HTMLElement = HTMLElement>(id: string): T {
    return document.getElementById(id) as T;
  }

  function el<K extends keyof HTMLElementTagNameMap>(
    tag: K,
    options: ElementOptions = {},
    children: Child[] = [],
  ): HTMLElementTagNameMap[K] {
    const node = document.createElement(tag);
    if (options.className) node.className = options.className;
    if (options.text !== undefined) node.textContent = String(options.text);
    if (options.attrs) {
      for (const name in options.attrs) node.setAttribute(name, options.attrs[name]);
    }
    for (const child of children) {
      if (child !== null && child !== undefined) node.append(child);
    }
    return node;
  }

  // Descriptions mark code with backticks (U+0060): shown as <code>, still as text nodes.
  function rich(text: string | undefined): HTMLSpanElement {
    const span = document.createElement("span");
    String(text || "").split("\u0060").forEach((part, i) => {
      span.append(i % 2 ? el("code", { text: part }) : document.createTextNode(part));
    });
    return span;
  }

  // JSON.parse that keeps integers beyond 2^53 exact (as BigInt) where the browser gives the
  // source text to the reviver; elsewhere they are shown rounded.
  function parseExact(text: string): unknown {
    return JSON.parse(text, (_key: string, value: unknown, context?: { source?: string }) => {
      if (
        typeof value === "number" && !Number.isSafeInteger(value) && context &&
        context.source !== undefined && /^-?[0-9]+$/.test(context.source)
      ) return BigInt(context.source);
      return value;
    });
  }

  function toJson(value: unknown, indent = ""): string {
    if (typeof value === "bigint") return value.toString();
    if (value === null || typeof value !== "object") return JSON.stringify(value);
    const inner = indent + "  ";
    if (Array.isArray(value)) {
      if (value.length === 0) return "[]";
      return "[\n" + value.map((item) => inner + toJson(item, inner)).join(",\n") + "\n" + indent +
        "]";
    }
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 0) return "{}";
    return "{\n" +
      keys.map((key) => inner + JSON.stringify(key) + ": " + toJson(record[key], inner)).join(
        ",\n",
      ) + "\n" + indent + "}";
  }

  /** Follows `$ref`s within the document (at most ten deep). */
  function resolve<T extends { $ref?: string }>(item: T | undefined): T | undefined {
    let seen = 0;
    while (item && item.$ref && seen++ < 10) {
      let target: unknown = doc;
      item.$ref.replace(/^#\//, "").split("/").forEach((part) => {
        target = target && (target as Record<string, unknown>)[
          part.replace(/~1/g, "/").replace(/~0/g, "~")
        ];
      });
      item = target as T | undefined;
    }
    return item;
  }

  function refName(schema: Schema | undefined): string | null {
    return schema && schema.$ref ? schema.$ref.split("/").pop() ?? null : null;
  }

  function describeSchema(schema: Schema | undefined): string {
    const name = refName(schema);
    if (name) return name;
    schema = schema || {};
    const parts: string[] = [];
    if (schema.enum) parts.push(schema.enum.map((v) => JSON.stringify(v)).join(" | "));
    if (schema.type === "array") parts.push("array of " + describeSchema(schema.items));
    else if (schema.type) {
      parts.push(schema.type + (schema.format ? " (" + schema.format + ")" : ""));
    }
    if (schema.minimum !== undefined || schema.maximum !== undefined) {
      parts.push(
        "from " + (schema.minimum !== undefined ? String(schema.minimum) : "…") + " to " +
          (schema.maximum !== undefined ? String(schema.maximum) : "…"),
      );
    }
    if (schema.minLength !== undefined || schema.maxLength !== undefined) {
      parts.push((schema.minLength || 0) + " to " + (schema.maxLength || "…") + " characters");
    }
    if (schema.pattern) parts.push("pattern " + schema.pattern);
    if (schema.default !== undefined) parts.push("default " + String(schema.default));
    return parts.join(", ") || "any";
  }

  function table(headings: string[], rows: (Node | string)[][]): HTMLTableElement {
    return el("table", {}, [
      el("thead", {}, [el("tr", {}, headings.map((h) => el("th", { text: h })))]),
      el(
        "tbody",
        {},
        rows.map((cells) =>
          el(
            "tr",
            {},
            cells.map((cell) =>
              el("td", {}, [typeof cell === "string" ? document.createTextNode(cell) : cell])
            ),
          )
        ),
      ),
    ]);
  }

  function schemaTable(given: Schema | undefined): HTMLElement {
    const schema = resolve(given);
    if (!schema || schema.type !== "object") return el("p", { text: describeSchema(schema) });
    const required = schema.required || [];
    const properties = schema.properties || {};
    const rows = Object.keys(properties).map((name) => {
      const property = properties[name];
      return [
        el("code", { text: name }),
        describeSchema(property),
        required.indexOf(name) >= 0 ? "yes" : "no",
        rich((resolve(property) || {}).description),
      ];
    });
    const extra = schema.additionalProperties === false
      ? el("p", { className: "muted", text: "No other fields are allowed." })
      : null;
    return el("div", {}, [table(["field", "type", "required", "notes"], rows), extra]);
  }

  function firstExample(media: Media | undefined): unknown {
    if (!media) return undefined;
    if (media.example !== undefined) return media.example;
    const examples = media.examples || {};
    const names = Object.keys(examples);
    return names.length ? resolve(examples[names[0]])?.value : undefined;
  }

  function renderOperation(path: string, method: string, operation: Operation): HTMLElement {
    const id = operation.operationId;
    const deprecated = operation.deprecated === true;
    const article = el("article", {
      className: "card operation" + (deprecated ? " deprecated" : ""),
      attrs: { id: "op-" + id, "data-operation-id": id },
    });
    article.append(el("h2", {}, [
      el("span", { className: "method " + method, text: method.toUpperCase() }),
      el("code", { className: "path", text: apiBase + path }),
      el("span", { className: "op-id", text: id }),
      deprecated ? el("span", { className: "badge deprecated", text: "Deprecated" }) : null,
    ]));
    if (operation.summary) article.append(el("p", { text: operation.summary }));
    if (deprecated) {
      const sunsetAt = operation["x-sunset"];
      const sunset = sunsetAt ? new Date(sunsetAt).toUTCString() : "";
      article.append(el("p", { className: "sunset" }, [
        el("strong", { text: "Deprecated. " }),
        document.createTextNode(sunset ? "Sunset: " : "This operation will be removed."),
        sunset
          ? el("time", {
            className: "sunset-date",
            text: sunset,
            attrs: { datetime: sunsetAt as string },
          })
          : null,
      ]));
    }
    if (operation.description) {
      article.append(el("p", { className: "muted" }, [rich(operation.description)]));
    }

    const parameters = (operation.parameters || []).map((p) => resolve(p) as Parameter);
    if (parameters.length) {
      article.append(
        el("h3", { text: "Parameters" }),
        table(
          ["name", "in", "type", "required", "notes"],
          parameters.map((p) => [
            el("code", { text: p.name }),
            p.in,
            describeSchema(p.schema),
            p.required ? "yes" : "no",
            rich(p.description),
          ]),
        ),
      );
    }
    const body = operation.requestBody && resolve(operation.requestBody);
    const bodyMedia = body && body.content && body.content["application/json"];
    if (bodyMedia) {
      article.append(
        el("h3", { text: "Request body: " + (refName(bodyMedia.schema) || "JSON") }),
        schemaTable(bodyMedia.schema),
      );
    }
    const responses = operation.responses || {};
    article.append(
      el("h3", { text: "Responses" }),
      table(
        ["status", "meaning", "body", "headers"],
        Object.keys(responses).map((status) => {
          const response = resolve(responses[status]) || {};
          const media = response.content && response.content["application/json"];
          return [
            el("strong", { text: status }),
            response.description || "",
            media ? describeSchema(media.schema) : "",
            Object.keys(response.headers || {}).join(", "),
          ];
        }),
      ),
    );
    article.append(tryIt(path, method, parameters, bodyMedia));
    return article;
  }

  function tryIt(
    path: string,
    method: string,
    parameters: Parameter[],
    bodyMedia: Media | undefined,
  ): HTMLElement {
    const section = el("section", { className: "try" }, [el("h3", { text: "Try it" })]);
    const fields = el("div", { className: "fields" });
    const inputs: Record<string, HTMLInputElement> = {};
    parameters.forEach((p) => {
      const input = el("input", {
        attrs: { name: p.name, "data-in": p.in, placeholder: describeSchema(p.schema) },
      });
      inputs[p.name] = input;
      fields.append(el("label", { text: p.name + " (" + p.in + ")" }), input);
    });
    section.append(fields);
    let bodyInput: HTMLTextAreaElement | null = null;
    if (bodyMedia) {
      const example = firstExample(bodyMedia);
      bodyInput = el("textarea", { attrs: { name: "body", "aria-label": "request body" } });
      bodyInput.value = example === undefined ? "{}" : toJson(example);
      section.append(el("label", { text: "body (application/json)" }), bodyInput);
    }
    const send = el("button", {
      text: "Send " + method.toUpperCase(),
      attrs: { type: "button", "data-action": "send" },
    });
    const next = el("button", {
      className: "secondary",
      text: "Next page",
      attrs: { type: "button", hidden: "" },
    });
    // Revalidation: sends the last response's ETag in If-None-Match; an unchanged response
    // answers 304 with no body. A request with its own If-None-Match bypasses the browser's
    // cache (Fetch standard), so the 304 itself is shown, not the browser's stored copy.
    const revalidate = el("button", {
      className: "secondary",
      text: "Revalidate (If-None-Match)",
      attrs: { type: "button", hidden: "", "data-action": "revalidate" },
    });
    let lastEtag: string | null = null;
    const output = el("div", { className: "result", attrs: { "aria-live": "polite" } });
    section.append(send, next, revalidate, output);

    function request(): void {
      let url = apiBase + path.replace(/\{([^}]+)\}/g, (_match: string, name: string) => {
        return encodeURIComponent(inputs[name] ? inputs[name].value : "");
      });
      const query = new URLSearchParams();
      const headers: Record<string, string> = {};
      parameters.forEach((p) => {
        const value = inputs[p.name].value;
        if (value === "") return;
        if (p.in === "query") query.append(p.name, value);
        if (p.in === "header") headers[p.name] = value;
      });
      if (query.toString()) url += "?" + query.toString();
      const key = byId<HTMLInputElement>("api-key").value.trim();
      if (key) headers.Authorization = "Bearer " + key;
      const init: SentRequest["init"] = { method: method.toUpperCase(), headers };
      if (bodyInput) {
        headers["Content-Type"] = "application/json";
        init.body = bodyInput.value;
      }
      dispatch(url, init);
    }

    // The last request as sent, so that "Revalidate" repeats it (the cursor input may already
    // hold the next page's cursor).
    let lastSent: SentRequest | null = null;

    function dispatch(url: string, init: SentRequest["init"]): void {
      lastSent = { url, init };
      output.replaceChildren(el("p", { className: "muted", text: init.method + " " + url + " …" }));
      fetch(url, init).then((response) =>
        response.text().then((text) => show(init.method + " " + url, response, text))
      ).catch((error: Error) => {
        output.replaceChildren(
          el("p", { className: "error-box", text: "Request failed: " + error.message }),
        );
      });
    }

    function show(line: string, response: Response, text: string): void {
      const headerLines: string[] = [];
      response.headers.forEach((value, name) => headerLines.push(name + ": " + value));
      let pretty = text;
      try {
        pretty = toJson(parseExact(text));
      } catch {
        // not JSON: shown as is
      }
      output.replaceChildren(
        el("p", { className: "muted", text: line }),
        el("p", {
          className: "status-line " + (response.ok || response.status === 304 ? "ok" : "error"),
          text: response.status + " " + response.statusText,
          attrs: { "data-status": String(response.status) },
        }),
        el("h3", { text: "Response headers" }),
        el("pre", { className: "response-headers", text: headerLines.join("\n") }),
        el("h3", { text: "Response body" }),
        el("pre", { className: "response-body", text: pretty }),
        ...(response.status === 304
          ? [el("p", {
            className: "muted not-modified",
            text: "Not modified: the copy tagged " + lastEtag +
              " is still current, so no body was sent.",
          })]
          : []),
      );
      const etag = response.headers.get("etag");
      if (etag) lastEtag = etag;
      revalidate.hidden = !(lastEtag && inputs["If-None-Match"]);
      const link = response.headers.get("link") || "";
      const match = /<([^>]*)>\s*;\s*rel="next"/.exec(link);
      next.hidden = !(match && inputs.cursor);
      if (match && inputs.cursor) {
        inputs.cursor.value = new URL(match[1], location.href).searchParams.get("cursor") || "";
      }
    }

    send.addEventListener("click", request);
    next.addEventListener("click", request);
    revalidate.addEventListener("click", () => {
      if (lastSent === null) return;
      const headers = { ...lastSent.init.headers, "If-None-Match": lastEtag ?? "" };
      dispatch(lastSent.url, { ...lastSent.init, headers });
    });
    return section;
  }

  function render(text: string): void {
    doc = parseExact(text) as OpenApiDocument;
    const info = doc.info || {};
    byId("title").textContent = info.title || "API";
    byId("summary").replaceChildren(rich(info.description || info.summary));
    byId("version").textContent = "· version " + info.version + " · OpenAPI " + doc.openapi;
    const toc = byId("toc");
    const operations = byId("operations");
    const paths = doc.paths || {};
    Object.keys(paths).forEach((path) => {
      ["get", "put", "post", "patch", "delete"].forEach((method) => {
        const operation = paths[path][method];
        if (!operation) return;
        toc.append(el("a", {
          text: method.toUpperCase() + " " + path + (operation.deprecated ? " (deprecated)" : ""),
          attrs: { href: "#op-" + operation.operationId },
        }));
        operations.append(renderOperation(path, method, operation));
      });
    });
    const schemas = byId("schemas");
    schemas.append(el("h2", { text: "Schemas" }));
    const components = (doc.components && doc.components.schemas) || {};
    Object.keys(components).forEach((name) => {
      const schema = components[name];
      schemas.append(el("div", { className: "card schema", attrs: { id: "schema-" + name } }, [
        el("h3", { text: name }),
        schema.description ? el("p", { text: schema.description }) : null,
        schemaTable(schema),
      ]));
    });
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
