/** Reading the `Link` header of a list page (RFC 8288), as a client walking the pages does. */

/** The URL of a response's `Link: <…>; rel="next"`, or undefined on the last page. */
export function nextLink(response: Response): string | undefined {
  return /<([^>]+)>\s*;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1];
}
