// Generated from src/docs/page/script.ts by scripts/generate_docs_script.ts: do not edit.

/** The docs page's script (ES2020), served as `{BASE_PATH}/docs/app.js`. */
export const DOCS_SCRIPT = `(() => {
  const apiBase = location.pathname.replace(/\\/docs\\/?$/, "");
  let doc = {};
  function byId(id) {
    return document.getElementById(id);
  }
  function el(tag, options = {}, children = []) {
    const node = document.createElement(tag);
    if (options.className) node.className = options.className;
    if (options.text !== void 0) node.textContent = String(options.text);
    if (options.attrs) {
      for (const name in options.attrs) node.setAttribute(name, options.attrs[name]);
    }
    for (const child of children) {
      if (child !== null && child !== void 0) node.append(child);
    }
    return node;
  }
  function rich(text) {
    const span = document.createElement("span");
    String(text || "").split("\`").forEach((part, i) => {
      span.append(i % 2 ? el("code", { text: part }) : document.createTextNode(part));
    });
    return span;
  }
  function parseExact(text) {
    return JSON.parse(text, (_key, value, context) => {
      if (typeof value === "number" && !Number.isSafeInteger(value) && context && context.source !== void 0 && /^-?[0-9]+$/.test(context.source)) return BigInt(context.source);
      return value;
    });
  }
  function toJson(value, indent = "") {
    if (typeof value === "bigint") return value.toString();
    if (value === null || typeof value !== "object") return JSON.stringify(value);
    const inner = indent + "  ";
    if (Array.isArray(value)) {
      if (value.length === 0) return "[]";
      return "[\\n" + value.map((item) => inner + toJson(item, inner)).join(",\\n") + "\\n" + indent + "]";
    }
    const record = value;
    const keys = Object.keys(record);
    if (keys.length === 0) return "{}";
    return "{\\n" + keys.map((key) => inner + JSON.stringify(key) + ": " + toJson(record[key], inner)).join(
      ",\\n"
    ) + "\\n" + indent + "}";
  }
  function resolve(item) {
    let seen = 0;
    while (item && item.$ref && seen++ < 10) {
      let target = doc;
      item.$ref.replace(/^#\\//, "").split("/").forEach((part) => {
        target = target && target[part.replace(/~1/g, "/").replace(/~0/g, "~")];
      });
      item = target;
    }
    return item;
  }
  function refName(schema) {
    return schema && schema.$ref ? schema.$ref.split("/").pop() ?? null : null;
  }
  function describeSchema(schema) {
    const name = refName(schema);
    if (name) return name;
    schema = schema || {};
    const parts = [];
    if (schema.enum) parts.push(schema.enum.map((v) => JSON.stringify(v)).join(" | "));
    if (schema.type === "array") parts.push("array of " + describeSchema(schema.items));
    else if (schema.type) {
      parts.push(schema.type + (schema.format ? " (" + schema.format + ")" : ""));
    }
    if (schema.minimum !== void 0 || schema.maximum !== void 0) {
      parts.push(
        "from " + (schema.minimum !== void 0 ? String(schema.minimum) : "\\u2026") + " to " + (schema.maximum !== void 0 ? String(schema.maximum) : "\\u2026")
      );
    }
    if (schema.minLength !== void 0 || schema.maxLength !== void 0) {
      parts.push((schema.minLength || 0) + " to " + (schema.maxLength || "\\u2026") + " characters");
    }
    if (schema.pattern) parts.push("pattern " + schema.pattern);
    if (schema.default !== void 0) parts.push("default " + String(schema.default));
    return parts.join(", ") || "any";
  }
  function table(headings, rows) {
    return el("table", {}, [
      el("thead", {}, [el("tr", {}, headings.map((h) => el("th", { text: h })))]),
      el(
        "tbody",
        {},
        rows.map(
          (cells) => el(
            "tr",
            {},
            cells.map(
              (cell) => el("td", {}, [typeof cell === "string" ? document.createTextNode(cell) : cell])
            )
          )
        )
      )
    ]);
  }
  function schemaTable(given) {
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
        rich((resolve(property) || {}).description)
      ];
    });
    const extra = schema.additionalProperties === false ? el("p", { className: "muted", text: "No other fields are allowed." }) : null;
    return el("div", {}, [table(["field", "type", "required", "notes"], rows), extra]);
  }
  function firstExample(media) {
    if (!media) return void 0;
    if (media.example !== void 0) return media.example;
    const examples = media.examples || {};
    const names = Object.keys(examples);
    return names.length ? resolve(examples[names[0]])?.value : void 0;
  }
  function renderOperation(path, method, operation) {
    const id = operation.operationId;
    const deprecated = operation.deprecated === true;
    const article = el("article", {
      className: "card operation" + (deprecated ? " deprecated" : ""),
      attrs: { id: "op-" + id, "data-operation-id": id }
    });
    article.append(el("h2", {}, [
      el("span", { className: "method " + method, text: method.toUpperCase() }),
      el("code", { className: "path", text: apiBase + path }),
      el("span", { className: "op-id", text: id }),
      deprecated ? el("span", { className: "badge deprecated", text: "Deprecated" }) : null
    ]));
    if (operation.summary) article.append(el("p", { text: operation.summary }));
    if (deprecated) {
      const sunsetAt = operation["x-sunset"];
      const sunset = sunsetAt ? new Date(sunsetAt).toUTCString() : "";
      article.append(el("p", { className: "sunset" }, [
        el("strong", { text: "Deprecated. " }),
        document.createTextNode(sunset ? "Sunset: " : "This operation will be removed."),
        sunset ? el("time", {
          className: "sunset-date",
          text: sunset,
          attrs: { datetime: sunsetAt }
        }) : null
      ]));
    }
    if (operation.description) {
      article.append(el("p", { className: "muted" }, [rich(operation.description)]));
    }
    const parameters = (operation.parameters || []).map((p) => resolve(p));
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
            rich(p.description)
          ])
        )
      );
    }
    const body = operation.requestBody && resolve(operation.requestBody);
    const bodyMedia = body && body.content && body.content["application/json"];
    if (bodyMedia) {
      article.append(
        el("h3", { text: "Request body: " + (refName(bodyMedia.schema) || "JSON") }),
        schemaTable(bodyMedia.schema)
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
            Object.keys(response.headers || {}).join(", ")
          ];
        })
      )
    );
    article.append(tryIt(path, method, parameters, bodyMedia));
    return article;
  }
  function tryIt(path, method, parameters, bodyMedia) {
    const section = el("section", { className: "try" }, [el("h3", { text: "Try it" })]);
    const fields = el("div", { className: "fields" });
    const inputs = {};
    parameters.forEach((p) => {
      const input = el("input", {
        attrs: { name: p.name, "data-in": p.in, placeholder: describeSchema(p.schema) }
      });
      inputs[p.name] = input;
      fields.append(el("label", { text: p.name + " (" + p.in + ")" }), input);
    });
    section.append(fields);
    let bodyInput = null;
    if (bodyMedia) {
      const example = firstExample(bodyMedia);
      bodyInput = el("textarea", { attrs: { name: "body", "aria-label": "request body" } });
      bodyInput.value = example === void 0 ? "{}" : toJson(example);
      section.append(el("label", { text: "body (application/json)" }), bodyInput);
    }
    const send = el("button", {
      text: "Send " + method.toUpperCase(),
      attrs: { type: "button", "data-action": "send" }
    });
    const next = el("button", {
      className: "secondary",
      text: "Next page",
      attrs: { type: "button", hidden: "" }
    });
    const revalidate = el("button", {
      className: "secondary",
      text: "Revalidate (If-None-Match)",
      attrs: { type: "button", hidden: "", "data-action": "revalidate" }
    });
    let lastEtag = null;
    const output = el("div", { className: "result", attrs: { "aria-live": "polite" } });
    section.append(send, next, revalidate, output);
    function request() {
      let url = apiBase + path.replace(/\\{([^}]+)\\}/g, (_match, name) => {
        return encodeURIComponent(inputs[name] ? inputs[name].value : "");
      });
      const query = new URLSearchParams();
      const headers = {};
      parameters.forEach((p) => {
        const value = inputs[p.name].value;
        if (value === "") return;
        if (p.in === "query") query.append(p.name, value);
        if (p.in === "header") headers[p.name] = value;
      });
      if (query.toString()) url += "?" + query.toString();
      const key = byId("api-key").value.trim();
      if (key) headers.Authorization = "Bearer " + key;
      const init = { method: method.toUpperCase(), headers };
      if (bodyInput) {
        headers["Content-Type"] = "application/json";
        init.body = bodyInput.value;
      }
      dispatch(url, init);
    }
    let lastSent = null;
    function dispatch(url, init) {
      lastSent = { url, init };
      output.replaceChildren(el("p", { className: "muted", text: init.method + " " + url + " \\u2026" }));
      fetch(url, init).then(
        (response) => response.text().then((text) => show(init.method + " " + url, response, text))
      ).catch((error) => {
        output.replaceChildren(
          el("p", { className: "error-box", text: "Request failed: " + error.message })
        );
      });
    }
    function show(line, response, text) {
      const headerLines = [];
      response.headers.forEach((value, name) => headerLines.push(name + ": " + value));
      let pretty = text;
      try {
        pretty = toJson(parseExact(text));
      } catch {
      }
      output.replaceChildren(
        el("p", { className: "muted", text: line }),
        el("p", {
          className: "status-line " + (response.ok || response.status === 304 ? "ok" : "error"),
          text: response.status + " " + response.statusText,
          attrs: { "data-status": String(response.status) }
        }),
        el("h3", { text: "Response headers" }),
        el("pre", { className: "response-headers", text: headerLines.join("\\n") }),
        el("h3", { text: "Response body" }),
        el("pre", { className: "response-body", text: pretty }),
        ...response.status === 304 ? [el("p", {
          className: "muted not-modified",
          text: "Not modified: the copy tagged " + lastEtag + " is still current, so no body was sent."
        })] : []
      );
      const etag = response.headers.get("etag");
      if (etag) lastEtag = etag;
      revalidate.hidden = !(lastEtag && inputs["If-None-Match"]);
      const link = response.headers.get("link") || "";
      const match = /<([^>]*)>\\s*;\\s*rel="next"/.exec(link);
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
  function render(text) {
    doc = parseExact(text);
    const info = doc.info || {};
    byId("title").textContent = info.title || "API";
    byId("summary").replaceChildren(rich(info.description || info.summary));
    byId("version").textContent = "\\xB7 version " + info.version + " \\xB7 OpenAPI " + doc.openapi;
    const toc = byId("toc");
    const operations = byId("operations");
    const paths = doc.paths || {};
    Object.keys(paths).forEach((path) => {
      ["get", "put", "post", "patch", "delete"].forEach((method) => {
        const operation = paths[path][method];
        if (!operation) return;
        toc.append(el("a", {
          text: method.toUpperCase() + " " + path + (operation.deprecated ? " (deprecated)" : ""),
          attrs: { href: "#op-" + operation.operationId }
        }));
        operations.append(renderOperation(path, method, operation));
      });
    });
    const schemas = byId("schemas");
    schemas.append(el("h2", { text: "Schemas" }));
    const components = doc.components && doc.components.schemas || {};
    Object.keys(components).forEach((name) => {
      const schema = components[name];
      schemas.append(el("div", { className: "card schema", attrs: { id: "schema-" + name } }, [
        el("h3", { text: name }),
        schema.description ? el("p", { text: schema.description }) : null,
        schemaTable(schema)
      ]));
    });
    document.body.setAttribute("data-ready", "true");
  }
  fetch("openapi.json").then((response) => {
    if (!response.ok) throw new Error("openapi.json answered " + response.status);
    return response.text();
  }).then(render).catch((error) => {
    byId("summary").textContent = "Cannot show the API: " + error.message;
    document.body.setAttribute("data-ready", "error");
  });
})();
`;
