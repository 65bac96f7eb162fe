/**
 * `DATABASE_URL` in libpq's URI form, one host or several (`postgres://u:pw@h1:5432,h2/db`), split
 * into one URL per host, since node-postgres takes one; the store looks for the primary among them
 * (store/postgres/failover.ts). The service writes, so `target_session_attrs` may be only
 * `read-write` (the default) or `primary`: any other could pick a standby, and is refused.
 */

const TARGETS = ["read-write", "primary"] as const;
type TargetSessionAttrs = (typeof TARGETS)[number];

/** One host of the URL: `name` for the log (never secret), `hostname` for `verify-full`. */
export type DatabaseHost = ReturnType<typeof parseDatabaseUrl>["hosts"][number];

/** Why a URL is refused; the message never holds the URL (it may hold a password). */
export class DatabaseUrlError extends Error {
  override name = "DatabaseUrlError";
}

/** The hosts of `url` and what it asks of them; throws DatabaseUrlError. */
export function parseDatabaseUrl(url: string) {
  const match = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/s.exec(url);
  if (match === null) throw new DatabaseUrlError("not a postgres:// URL");
  const [, scheme, authority, rest] = match;
  const at = authority.lastIndexOf("@");
  const userinfo = at === -1 ? "" : authority.slice(0, at + 1);
  const entries = authority.slice(at + 1).split(",");
  const hosts = entries.map((entry) => {
    const host = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]*)(?::([0-9]*))?$/.exec(entry);
    // One host may be empty (libpq's default host); in a list, each must be named.
    if (host === null || (entries.length > 1 && host[1] === "")) {
      throw new DatabaseUrlError(
        "its hosts must be host or host:port, several separated by commas",
      );
    }
    const port = host[2] || undefined;
    const single = `${scheme}${userinfo}${host[1]}${port === undefined ? "" : `:${port}`}${rest}`;
    if (!URL.canParse(single)) throw new DatabaseUrlError("it is not a valid URL");
    return {
      // `host:port` as written (the port defaulted); the host without IPv6 brackets; the URL of
      // this host only, without `target_session_attrs` (it may hold a password).
      name: `${host[1] === "" ? "localhost" : host[1]}:${port ?? "5432"}`,
      hostname: host[1].replace(/^\[(.*)\]$/, "$1"),
      url: withoutTargetSessionAttrs(single),
    };
  });
  const query = new URL(`${scheme}x${rest}`).searchParams;
  const targetSessionAttrs = query.get("target_session_attrs") ?? "read-write";
  if (!TARGETS.includes(targetSessionAttrs as TargetSessionAttrs)) {
    const got = JSON.stringify(targetSessionAttrs);
    throw new DatabaseUrlError(
      `its target_session_attrs must be read-write or primary (the service writes only to a primary), got ${got}`,
    );
  }
  return { hosts, targetSessionAttrs: targetSessionAttrs as TargetSessionAttrs };
}

/** The URL without `target_session_attrs`, which node-postgres does not know. */
function withoutTargetSessionAttrs(url: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has("target_session_attrs")) return url;
  parsed.searchParams.delete("target_session_attrs");
  return parsed.toString();
}
