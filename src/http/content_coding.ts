/**
 * `Accept-Encoding` negotiation (RFC 9110 §12.5.3) between the codings the service offers: br,
 * gzip and identity. q-values are honoured, `q=0` refuses a coding, `*` stands for every coding
 * the header does not name, and br wins a tie with gzip (smaller for the same body). Without the
 * header the body goes out as is; when nothing offered is acceptable it goes out as is too
 * (§12.5.3: "SHOULD send a response without any content coding").
 */

/** A content coding the service can send. */
export type ContentCoding = "br" | "gzip" | "identity";

interface Weights {
  br: number | undefined;
  gzip: number | undefined;
  identity: number | undefined;
  any: number | undefined;
}

const QVALUE = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

/** The coding a compressible body should be sent in, by the request's `Accept-Encoding`. */
export function negotiateCoding(acceptEncoding: string | null): ContentCoding {
  if (acceptEncoding === null || acceptEncoding === "") return "identity";
  const weights = parseWeights(acceptEncoding);
  const br = weights.br ?? weights.any ?? 0;
  const gzip = weights.gzip ?? weights.any ?? 0;
  const best = br >= gzip ? br : gzip;
  if (best <= 0) return "identity";
  // Identity is acceptable unless refused; it wins only when the client ranks it higher.
  if (weights.identity !== undefined && weights.identity > best) return "identity";
  return br >= gzip ? "br" : "gzip";
}

/** The q of each coding named in the header; an element with a malformed q is ignored. */
function parseWeights(header: string): Weights {
  const weights: Weights = { br: undefined, gzip: undefined, identity: undefined, any: undefined };
  for (const element of header.split(",")) {
    const parameters = element.split(";");
    const name = parameters[0].trim().toLowerCase();
    if (name === "") continue;
    let q = 1;
    let valid = true;
    for (let i = 1; i < parameters.length; i++) {
      const parameter = parameters[i].trim();
      const equals = parameter.indexOf("=");
      if (equals === -1 || parameter.slice(0, equals).trim().toLowerCase() !== "q") continue;
      const value = parameter.slice(equals + 1).trim();
      if (QVALUE.test(value)) q = Number(value);
      else valid = false;
    }
    if (!valid) continue;
    // RFC 9110 §8.4.1.3: x-gzip is an alias of gzip.
    const coding = name === "x-gzip" ? "gzip" : name === "*" ? "any" : name;
    if (coding === "br" || coding === "gzip" || coding === "identity" || coding === "any") {
      // A coding named twice keeps its highest weight.
      const before = weights[coding];
      weights[coding] = before === undefined ? q : Math.max(before, q);
    }
  }
  return weights;
}
