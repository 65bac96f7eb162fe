/**
 * Which host of `DATABASE_URL` is the primary, by libpq's multi-host rule (node-postgres connects
 * to one host): the first in the URL's order that qualifies for `target_session_attrs`. All are
 * asked at once, each within the statement deadline, so a frozen host delays the answer no more.
 */
import type { DatabaseConfig } from "../../config/config.ts";
import type { DatabaseHost, TargetSessionAttrs } from "../../config/database_url.ts";
import {
  CONNECT_TIMEOUT_MS,
  connectDatabase,
  DEADLINE_MARGIN_MS,
  describeDatabaseError,
  type HostConfig,
  hostConfigs,
  settleSslMode,
} from "./connect.ts";
import type { Queryable } from "./database.ts";

/** The timeline: the first 8 hex digits of the current WAL file's name, exact on a primary. */
const HOST_ROLE_QUERY = `
  SELECT pg_is_in_recovery() AS recovery,
    current_setting('transaction_read_only') AS read_only,
    CASE WHEN pg_is_in_recovery() THEN NULL
      ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint
    END AS timeline`;

interface HostRoleRow {
  readonly recovery: boolean;
  readonly read_only: string;
  /** int8 as text; null on a standby. */
  readonly timeline: string | null;
}

/** A host that answered: writable, a standby, or a primary whose sessions are read-only. */
export type HostRole = "primary" | "standby" | "read_only";

/** What `target` makes of a host's answer to HOST_ROLE_QUERY. */
function hostRole(row: HostRoleRow, target: TargetSessionAttrs): HostRole {
  if (row.recovery) return "standby";
  return target === "read-write" && row.read_only === "on" ? "read_only" : "primary";
}

/** How the log says what a host is that the service cannot write to. */
export function describeRole(role: Exclude<HostRole, "primary">): string {
  return role === "standby"
    ? "is a read-only standby (in recovery)"
    : "is read-only (default_transaction_read_only is on)";
}

/** The host the service was writing to is not a writable primary any more. */
class NotPrimaryError extends Error {
  readonly code = "NOT_PRIMARY";
}

/** The role of a host on an open connection; throws NotPrimaryError for any but a primary. */
export async function checkPrimary(
  connection: Queryable,
  host: DatabaseHost,
  target: TargetSessionAttrs,
): Promise<{ timeline: number }> {
  const [row] = await connection.query<HostRoleRow>(HOST_ROLE_QUERY);
  const role = hostRole(row, target);
  if (role !== "primary") {
    throw new NotPrimaryError(`the database host ${host.name} ${describeRole(role)}`);
  }
  return { timeline: Number(row.timeline) };
}

export type HostAnswer =
  | { readonly host: DatabaseHost; readonly role: HostRole }
  | { readonly host: DatabaseHost; readonly error: unknown };

export interface FoundPrimary {
  readonly host: DatabaseHost;
  /** The settings that reach it alone, TLS mode settled. */
  readonly config: DatabaseConfig;
}

export class PrimaryFinder {
  readonly #hosts: readonly HostConfig[];
  readonly target: TargetSessionAttrs;
  /** Each host's settings once its TLS mode is settled (`prefer` needs the server). */
  readonly #settled = new Map<number, DatabaseConfig>();
  readonly #deadlineMs: number;

  constructor(config: DatabaseConfig) {
    const { hosts, targetSessionAttrs } = hostConfigs(config);
    this.#hosts = hosts;
    this.target = targetSessionAttrs;
    const timeout = config.statementTimeoutMs;
    this.#deadlineMs = timeout === 0 ? CONNECT_TIMEOUT_MS : timeout + DEADLINE_MARGIN_MS;
  }

  /** The first primary in the URL's order, as soon as every host before it has answered. */
  find(): Promise<{ primary?: FoundPrimary; answers: HostAnswer[] }> {
    const answers: (HostAnswer | undefined)[] = this.#hosts.map(() => undefined);
    return new Promise((resolve) => {
      const settle = () => {
        const known = answers.filter((answer) => answer !== undefined);
        for (const [index, answer] of answers.entries()) {
          if (answer === undefined) return; // an earlier host may still be the primary
          if ("role" in answer && answer.role === "primary") {
            const config = this.#settled.get(index)!;
            return resolve({ primary: { host: answer.host, config }, answers: known });
          }
        }
        resolve({ answers: known });
      };
      this.#hosts.forEach((host, index) => {
        this.#ask(host, index).then((answer) => {
          answers[index] = answer;
          settle();
        });
      });
    });
  }

  /** One host's role, on a connection of its own that is closed afterwards; never rejects. */
  async #ask({ host, config }: HostConfig, index: number): Promise<HostAnswer> {
    try {
      let settled = this.#settled.get(index);
      if (settled === undefined) {
        settled = await settleSslMode({ ...config, poolSize: 1 });
        this.#settled.set(index, { ...settled, poolSize: config.poolSize });
      }
      const db = connectDatabase({ ...settled, poolSize: 1 }, "animal-store");
      try {
        const deadline = performance.now() + this.#deadlineMs;
        const [row] = await db.query<HostRoleRow>(HOST_ROLE_QUERY, undefined, deadline);
        return { host, role: hostRole(row, this.target) };
      } finally {
        await db.end();
      }
    } catch (error) {
      return { host, error };
    }
  }
}

/** For a command that connects once (`import`, `backup`). */
export async function findPrimaryOnce(config: DatabaseConfig): Promise<DatabaseConfig> {
  const { primary, answers } = await new PrimaryFinder(config).find();
  if (primary !== undefined) return primary.config;
  const errors = answers.flatMap((answer) => "error" in answer ? [answer.error] : []);
  if (errors.length === answers.length) throw errors[0];
  const hosts = answers.map((answer) =>
    "role" in answer
      ? `${answer.host.name} ${describeRole(answer.role as Exclude<HostRole, "primary">)}`
      : `${answer.host.name}: ${describeDatabaseError(answer.error)}`
  );
  throw new Error(`no host of DATABASE_URL is a writable primary: ${hosts.join("; ")}`);
}
