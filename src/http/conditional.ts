/**
 * `If-None-Match` (RFC 9110 §13.1.2): a list of entity tags or `*`, compared the weak way
 * (§8.8.3.2: `W/"x"` matches `"x"`; only the opaque tags are compared). A malformed header
 * matches nothing, so the full response is sent: the safe outcome when unsure.
 */

/** True when `header` (the request's If-None-Match) matches the response's `etag`. */
export function ifNoneMatchMatches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const trimmed = header.trim();
  if (trimmed === "*") return true;
  let i = 0;
  const length = trimmed.length;
  while (i < length) {
    // Skip the separators and white space between list members (RFC 9110 §5.6.1).
    const char = trimmed.charCodeAt(i);
    if (char === 0x2c || char === 0x20 || char === 0x09) {
      i++;
      continue;
    }
    if (trimmed.startsWith("W/", i)) i += 2;
    if (trimmed.charCodeAt(i) !== 0x22) return false;
    // An opaque tag may hold commas, so the tag ends at the next quote, not at a comma.
    const end = trimmed.indexOf('"', i + 1);
    if (end === -1) return false;
    if (trimmed.slice(i, end + 1) === etag) return true;
    i = end + 1;
  }
  return false;
}
