/**
 * `DATABASE_URL` in libpq's URI form, with one host or several (`postgres://user:pw@h1:5432,
 * h2:5432/db?target_session_attrs=read-write`). node-postgres takes one host per connection, so
 * the URL is split into one URL per host, each otherwise the same; the store tries them to find
 * the primary (store/postgres/failover.ts).
 *
 * `target_session_attrs` says which host is wanted. The service writes, so only `read-write`
 * (the default: a host whose sessions are not read-only) and `primary` (a host not in recovery)
 * make sense; with `any`, `read-only`, `standby` or `prefer-standby` libpq could hand it a
 * standby, so they are refused as a bad setting rather than silently overridden.
 */

/** What the URL asks of the host the service writes to. */
export type TargetSessionAttrs = "read-write" | "primary";

const TARGETS: readonly TargetSessionAttrs[] = ["read-write", "primary"];

/** One host of the URL, and the single-host URL node-postgres is given for it. */
export interface DatabaseHost {
  /** `host:port` as written in the URL (the port defaulted to 5432): for the log, never secret. */
  readonly name: string;
  /** The host name or address, without IPv6 brackets: what `verify-full` checks. */
  readonly hostname: string;
  /** The whole URL with only this host (and without `target_session_attrs`): may hold a password. */
  readonly url: string;
}

export interface DatabaseAddress {
  readonly hosts: readonly DatabaseHost[];
  readonly targetSessionAttrs: TargetSessionAttrs;
}

/** Why a URL is refused; the message never holds the URL (it may hold a password). */
export class DatabaseUrlError extends Error {
  override name = "DatabaseUrlError";
}

const DEFAULT_PORT = "5432";

/**
 * The hosts of `url` and what it asks of them; throws DatabaseUrlError for a URL that is not a
 * `postgres:`/`postgresql:` URL, a host list with an empty or malformed entry, or a
 * `target_session_attrs` the service cannot honour.
 */
export function parseDatabaseUrl(url: string): DatabaseAddress {
  const match = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/s.exec(url);
  if (match === null) throw new DatabaseUrlError("not a postgres:// URL");
  const [, scheme, authority, rest] = match;
  const at = authority.lastIndexOf("@");
  const userinfo = at === -1 ? "" : authority.slice(0, at + 1);
  const hostList = authority.slice(at + 1);
  const entries = hostList.includes(",") ? hostList.split(",") : [hostList];
  const hosts = entries.map((entry): DatabaseHost => {
    const host = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]*)(?::([0-9]*))?$/.exec(entry);
    // One host may be empty (libpq's default host); in a list, each must be named.
    if (host === null || (entries.length > 1 && host[1] === "")) {
      throw new DatabaseUrlError(
        "its hosts must be host or host:port, several separated by commas",
      );
    }
    const port = host[2] === undefined || host[2] === "" ? undefined : host[2];
    const single = `${scheme}${userinfo}${host[1]}${port === undefined ? "" : `:${port}`}${rest}`;
    if (!URL.canParse(single)) throw new DatabaseUrlError("it is not a valid URL");
    return {
      name: `${host[1] === "" ? "localhost" : host[1]}:${port ?? DEFAULT_PORT}`,
      hostname: host[1].replace(/^\[(.*)\]$/, "$1"),
      url: withoutTargetSessionAttrs(single),
    };
  });
  const targetSessionAttrs =
    new URL(`${scheme}x${rest}`).searchParams.get("target_session_attrs") ??
      "read-write";
  if (!TARGETS.includes(targetSessionAttrs as TargetSessionAttrs)) {
    throw new DatabaseUrlError(
      `its target_session_attrs must be read-write or primary (the service writes only to a primary), got ${
        JSON.stringify(targetSessionAttrs)
      }`,
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
