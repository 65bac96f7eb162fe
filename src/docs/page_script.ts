/**
 * The docs page's script, served as `{BASE_PATH}/docs/app.js`: vanilla JS (no framework, no
 * CDN) that fetches `openapi.json`, lists the operations with their parameters and schemas,
 * shows deprecation and sunset, and sends requests with a pasted key. Kept as a string in a TS
 * module so it is bundled into the single executable (no file reads at run time). It contains
 * no backtick and no dollar-brace, so `String.raw` holds it verbatim.
 */

/** The page script (plain ES2020). */
export const DOCS_SCRIPT = String.raw`
// The docs page: renders openapi.json (same directory as this page) and lets a person try each
// operation with their key. Plain DOM building with textContent only: nothing from the document
// or a response is ever parsed as HTML.
"use strict";
(function () {
  var apiBase = location.pathname.replace(/\/docs\/?$/, "");
  var doc = null;

  function el(tag, options, children) {
    var node = document.createElement(tag);
    options = options || {};
    if (options.className) node.className = options.className;
    if (options.text !== undefined) node.textContent = String(options.text);
    if (options.attrs) {
      for (var name in options.attrs) node.setAttribute(name, options.attrs[name]);
    }
    (children || []).forEach(function (child) {
      if (child !== null && child !== undefined) node.append(child);
    });
    return node;
  }

  // Descriptions mark code with backticks (U+0060): shown as <code>, still as text nodes.
  function rich(text) {
    var span = document.createElement("span");
    String(text || "").split("\u0060").forEach(function (part, i) {
      span.append(i % 2 ? el("code", { text: part }) : document.createTextNode(part));
    });
    return span;
  }

  // JSON.parse that keeps integers beyond 2^53 exact (as BigInt) where the browser gives the
  // source text to the reviver; elsewhere they are shown rounded.
  function parseExact(text) {
    return JSON.parse(text, function (key, value, context) {
      if (typeof value === "number" && !Number.isSafeInteger(value) && context &&
        /^-?[0-9]+$/.test(context.source)) return BigInt(context.source);
      return value;
    });
  }

  function toJson(value, indent) {
    indent = indent || "";
    if (typeof value === "bigint") return value.toString();
    if (value === null || typeof value !== "object") return JSON.stringify(value);
    var inner = indent + "  ";
    if (Array.isArray(value)) {
      if (value.length === 0) return "[]";
      return "[\n" + value.map(function (item) { return inner + toJson(item, inner); })
        .join(",\n") + "\n" + indent + "]";
    }
    var keys = Object.keys(value);
    if (keys.length === 0) return "{}";
    return "{\n" + keys.map(function (key) {
      return inner + JSON.stringify(key) + ": " + toJson(value[key], inner);
    }).join(",\n") + "\n" + indent + "}";
  }

  function resolve(item) {
    var seen = 0;
    while (item && item.$ref && seen++ < 10) {
      var target = doc;
      item.$ref.replace(/^#\//, "").split("/").forEach(function (part) {
        target = target && target[part.replace(/~1/g, "/").replace(/~0/g, "~")];
      });
      item = target;
    }
    return item;
  }

  function refName(schema) {
    return schema && schema.$ref ? schema.$ref.split("/").pop() : null;
  }

  function describeSchema(schema) {
    var name = refName(schema);
    if (name) return name;
    schema = schema || {};
    var parts = [];
    if (schema.enum) parts.push(schema.enum.map(function (v) { return JSON.stringify(v); }).join(" | "));
    if (schema.type === "array") parts.push("array of " + describeSchema(schema.items));
    else if (schema.type) parts.push(schema.type + (schema.format ? " (" + schema.format + ")" : ""));
    if (schema.minimum !== undefined || schema.maximum !== undefined) {
      parts.push("from " + (schema.minimum !== undefined ? String(schema.minimum) : "…") + " to " +
        (schema.maximum !== undefined ? String(schema.maximum) : "…"));
    }
    if (schema.minLength !== undefined || schema.maxLength !== undefined) {
      parts.push((schema.minLength || 0) + " to " + (schema.maxLength || "…") + " characters");
    }
    if (schema.pattern) parts.push("pattern " + schema.pattern);
    if (schema.default !== undefined) parts.push("default " + String(schema.default));
    return parts.join(", ") || "any";
  }

  function table(headings, rows) {
    return el("table", {}, [
      el("thead", {}, [el("tr", {}, headings.map(function (h) { return el("th", { text: h }); }))]),
      el("tbody", {}, rows.map(function (cells) {
        return el("tr", {}, cells.map(function (cell) {
          return el("td", {}, [typeof cell === "string" ? document.createTextNode(cell) : cell]);
        }));
      })),
    ]);
  }

  function schemaTable(schema) {
    schema = resolve(schema);
    if (!schema || schema.type !== "object") return el("p", { text: describeSchema(schema) });
    var required = schema.required || [];
    var rows = Object.keys(schema.properties || {}).map(function (name) {
      var property = schema.properties[name];
      return [el("code", { text: name }), describeSchema(property),
        required.indexOf(name) >= 0 ? "yes" : "no", rich((resolve(property) || {}).description)];
    });
    var extra = schema.additionalProperties === false ? el("p", { className: "muted",
      text: "No other fields are allowed." }) : null;
    return el("div", {}, [table(["field", "type", "required", "notes"], rows), extra]);
  }

  function firstExample(media) {
    if (!media) return undefined;
    if (media.example !== undefined) return media.example;
    var names = Object.keys(media.examples || {});
    return names.length ? resolve(media.examples[names[0]]).value : undefined;
  }

  function renderOperation(path, method, operation) {
    var id = operation.operationId;
    var deprecated = operation.deprecated === true;
    var article = el("article", { className: "card operation" + (deprecated ? " deprecated" : ""),
      attrs: { id: "op-" + id, "data-operation-id": id } });
    article.append(el("h2", {}, [
      el("span", { className: "method " + method, text: method.toUpperCase() }),
      el("code", { className: "path", text: apiBase + path }),
      el("span", { className: "op-id", text: id }),
      deprecated ? el("span", { className: "badge deprecated", text: "Deprecated" }) : null,
    ]));
    if (operation.summary) article.append(el("p", { text: operation.summary }));
    if (deprecated) {
      var sunset = operation["x-sunset"] ? new Date(operation["x-sunset"]).toUTCString() : "";
      article.append(el("p", { className: "sunset" }, [
        el("strong", { text: "Deprecated. " }),
        document.createTextNode(sunset ? "Sunset: " : "This operation will be removed."),
        sunset ? el("time", { className: "sunset-date", text: sunset,
          attrs: { datetime: operation["x-sunset"] } }) : null,
      ]));
    }
    if (operation.description) article.append(el("p", { className: "muted" }, [rich(operation.description)]));

    var parameters = (operation.parameters || []).map(resolve);
    if (parameters.length) {
      article.append(el("h3", { text: "Parameters" }), table(["name", "in", "type", "required", "notes"],
        parameters.map(function (p) {
          return [el("code", { text: p.name }), p.in, describeSchema(p.schema), p.required ? "yes" : "no",
            rich(p.description)];
        })));
    }
    var body = operation.requestBody && resolve(operation.requestBody);
    var bodyMedia = body && body.content && body.content["application/json"];
    if (bodyMedia) {
      article.append(el("h3", { text: "Request body: " + (refName(bodyMedia.schema) || "JSON") }),
        schemaTable(bodyMedia.schema));
    }
    var responses = operation.responses || {};
    article.append(el("h3", { text: "Responses" }), table(["status", "meaning", "body", "headers"],
      Object.keys(responses).map(function (status) {
        var response = resolve(responses[status]);
        var media = response.content && response.content["application/json"];
        return [el("strong", { text: status }), response.description || "",
          media ? describeSchema(media.schema) : "", Object.keys(response.headers || {}).join(", ")];
      })));
    article.append(tryIt(path, method, operation, parameters, bodyMedia));
    return article;
  }

  function tryIt(path, method, operation, parameters, bodyMedia) {
    var section = el("section", { className: "try" }, [el("h3", { text: "Try it" })]);
    var fields = el("div", { className: "fields" });
    var inputs = {};
    parameters.forEach(function (p) {
      var input = el("input", { attrs: { name: p.name, "data-in": p.in,
        placeholder: describeSchema(p.schema) } });
      inputs[p.name] = input;
      fields.append(el("label", { text: p.name + " (" + p.in + ")" }), input);
    });
    section.append(fields);
    var bodyInput = null;
    if (bodyMedia) {
      var example = firstExample(bodyMedia);
      bodyInput = el("textarea", { attrs: { name: "body", "aria-label": "request body" } });
      bodyInput.value = example === undefined ? "{}" : toJson(example);
      section.append(el("label", { text: "body (application/json)" }), bodyInput);
    }
    var send = el("button", { text: "Send " + method.toUpperCase(), attrs: { type: "button", "data-action": "send" } });
    var next = el("button", { className: "secondary", text: "Next page", attrs: { type: "button", hidden: "" } });
    // Revalidation: sends the last response's ETag in If-None-Match; an unchanged response
    // answers 304 with no body. A request with its own If-None-Match bypasses the browser's
    // cache (Fetch standard), so the 304 itself is shown, not the browser's stored copy.
    var revalidate = el("button", { className: "secondary", text: "Revalidate (If-None-Match)",
      attrs: { type: "button", hidden: "", "data-action": "revalidate" } });
    var lastEtag = null;
    var output = el("div", { className: "result", attrs: { "aria-live": "polite" } });
    section.append(send, next, revalidate, output);

    function request() {
      var url = apiBase + path.replace(/\{([^}]+)\}/g, function (_, name) {
        return encodeURIComponent(inputs[name] ? inputs[name].value : "");
      });
      var query = new URLSearchParams();
      var headers = {};
      parameters.forEach(function (p) {
        var value = inputs[p.name].value;
        if (value === "") return;
        if (p.in === "query") query.append(p.name, value);
        if (p.in === "header") headers[p.name] = value;
      });
      if (query.toString()) url += "?" + query.toString();
      var key = document.getElementById("api-key").value.trim();
      if (key) headers.Authorization = "Bearer " + key;
      var init = { method: method.toUpperCase(), headers: headers };
      if (bodyInput) {
        headers["Content-Type"] = "application/json";
        init.body = bodyInput.value;
      }
      dispatch(url, init);
    }

    // The last request as sent, so that "Revalidate" repeats it (the cursor input may already
    // hold the next page's cursor).
    var lastSent = null;

    function dispatch(url, init) {
      lastSent = { url: url, init: init };
      output.replaceChildren(el("p", { className: "muted", text: init.method + " " + url + " …" }));
      fetch(url, init).then(function (response) {
        return response.text().then(function (text) { show(init.method + " " + url, response, text); });
      }).catch(function (error) {
        output.replaceChildren(el("p", { className: "error-box", text: "Request failed: " + error.message }));
      });
    }

    function show(line, response, text) {
      var headerLines = [];
      response.headers.forEach(function (value, name) { headerLines.push(name + ": " + value); });
      var pretty = text;
      try { pretty = toJson(parseExact(text)); } catch (ignored) { /* not JSON: show as is */ }
      output.replaceChildren(
        el("p", { className: "muted", text: line }),
        el("p", { className: "status-line " + (response.ok || response.status === 304 ? "ok" : "error"),
          text: response.status + " " + response.statusText, attrs: { "data-status": String(response.status) } }),
        el("h3", { text: "Response headers" }), el("pre", { className: "response-headers", text: headerLines.join("\n") }),
        el("h3", { text: "Response body" }), el("pre", { className: "response-body", text: pretty }),
        response.status === 304 ? el("p", { className: "muted not-modified",
          text: "Not modified: the copy tagged " + lastEtag + " is still current, so no body was sent." })
          : null);
      var etag = response.headers.get("etag");
      if (etag) lastEtag = etag;
      revalidate.hidden = !(lastEtag && inputs["If-None-Match"]);
      var link = response.headers.get("link") || "";
      var match = /<([^>]*)>\s*;\s*rel="next"/.exec(link);
      next.hidden = !(match && inputs.cursor);
      if (match && inputs.cursor) {
        inputs.cursor.value = new URL(match[1], location.href).searchParams.get("cursor") || "";
      }
    }

    send.addEventListener("click", request);
    next.addEventListener("click", request);
    revalidate.addEventListener("click", function () {
      var headers = Object.assign({}, lastSent.init.headers, { "If-None-Match": lastEtag });
      dispatch(lastSent.url, Object.assign({}, lastSent.init, { headers: headers }));
    });
    return section;
  }

  function render(text) {
    doc = parseExact(text);
    var info = doc.info || {};
    document.getElementById("title").textContent = info.title || "API";
    document.getElementById("summary").replaceChildren(rich(info.description || info.summary));
    document.getElementById("version").textContent = "· version " + info.version + " · OpenAPI " + doc.openapi;
    var toc = document.getElementById("toc");
    var operations = document.getElementById("operations");
    Object.keys(doc.paths || {}).forEach(function (path) {
      ["get", "put", "post", "patch", "delete"].forEach(function (method) {
        var operation = doc.paths[path][method];
        if (!operation) return;
        toc.append(el("a", { text: method.toUpperCase() + " " + path + (operation.deprecated ? " (deprecated)" : ""),
          attrs: { href: "#op-" + operation.operationId } }));
        operations.append(renderOperation(path, method, operation));
      });
    });
    var schemas = document.getElementById("schemas");
    schemas.append(el("h2", { text: "Schemas" }));
    var components = (doc.components && doc.components.schemas) || {};
    Object.keys(components).forEach(function (name) {
      var schema = components[name];
      schemas.append(el("div", { className: "card schema", attrs: { id: "schema-" + name } }, [
        el("h3", { text: name }),
        schema.description ? el("p", { text: schema.description }) : null,
        schemaTable(schema),
      ]));
    });
    document.body.setAttribute("data-ready", "true");
  }

  fetch("openapi.json").then(function (response) {
    if (!response.ok) throw new Error("openapi.json answered " + response.status);
    return response.text();
  }).then(render).catch(function (error) {
    document.getElementById("summary").textContent = "Cannot show the API: " + error.message;
    document.body.setAttribute("data-ready", "error");
  });
})();
`;
