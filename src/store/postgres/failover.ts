/**
 * Failover. The primary is found by libpq's multi-host rule (node-postgres connects to one host):
 * the first host in the URL's order that qualifies for `target_session_attrs`; all are asked at
 * once, so a frozen host delays the answer no more.
 *
 * No id is given twice, though a promoted standby may lack the old primary's last batches: the
 * counter row keeps its `timeline` and that timeline's `range_start`; ids never pass
 * `range_start + TIMELINE_ID_SPAN` (the batch statement caps them), and on a newer timeline the
 * counter moves one span per step. The new primary's row is one the old primary wrote
 * (replication copies a prefix), so this is past every id the old one gave, whichever instance
 * gave it. Checked per new connection, not per batch (a promotion drops our connections), so a
 * create stays one statement. Acknowledged ids the new primary lacks are logged for the operator.
 */
import type { DatabaseConfig } from "../../config/config.ts";
import { type DatabaseHost, parseDatabaseUrl } from "../../config/database_url.ts";
import { MAX_PET_ID } from "../store.ts";
import {
  CodedError,
  CONNECT_TIMEOUT_MS,
  Database,
  describeDatabaseError,
  fatalStartReason,
  type HostConfig,
  type Queryable,
  sslMode,
} from "./database.ts";

// ---- The primary ----

/** The timeline: the first 8 hex digits of the current WAL file's name, exact on a primary. */
const HOST_ROLE_QUERY = `
  SELECT pg_is_in_recovery() AS recovery,
    current_setting('transaction_read_only') AS read_only,
    CASE WHEN pg_is_in_recovery() THEN NULL
      ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint
    END AS timeline`;

/** `timeline` is int8 as text, null on a standby. */
type HostRoleRow = { recovery: boolean; read_only: string; timeline: string | null };

/** A host that answered: writable, a standby, or a primary whose sessions are read-only. */
type HostRole = "primary" | "standby" | "read_only";

export function describeRole(role: HostRole): string {
  return role === "standby"
    ? "is a read-only standby (in recovery)"
    : "is read-only (default_transaction_read_only is on)";
}

/** A host's role, or the error that kept it from answering. */
type HostAnswer =
  | { readonly host: DatabaseHost; readonly role: HostRole; readonly error?: never }
  | { readonly host: DatabaseHost; readonly role?: never; readonly error: unknown };

/** A host and the settings that reach it alone; TLS `prefer` is settled at its first answer. */
export type Candidate = { readonly host: DatabaseHost; config: HostConfig };

/** node-postgres's answer (with no code) when the server has no TLS. */
const NO_TLS = "The server does not support SSL connections";

export class PrimaryFinder {
  readonly #hosts: readonly Candidate[];
  /** `target_session_attrs=read-write`: a primary whose sessions are read-only is passed over. */
  readonly #readWrite: boolean;
  #primary: Candidate | undefined;

  constructor(config: DatabaseConfig) {
    const address = parseDatabaseUrl(config.url);
    this.#hosts = address.hosts.map((host) => {
      return { host, config: { ...config, url: host.url, hostname: host.hostname } };
    });
    this.#readWrite = address.targetSessionAttrs === "read-write";
  }

  /**
   * The first primary in the URL's order, as soon as every host before it has answered. Throws
   * when every host failed (an error no retry cures first).
   */
  async find(): Promise<{ primary?: Candidate; answers: HostAnswer[] }> {
    const asked = this.#hosts.map((candidate) => this.#ask(candidate));
    const answers: HostAnswer[] = [];
    for (const [index, asking] of asked.entries()) {
      const answer = await asking;
      answers.push(answer);
      if (answer.role !== "primary") continue;
      this.#primary = this.#hosts[index];
      return { primary: this.#primary, answers };
    }
    const errors = answers.flatMap(({ role, error }) => role === undefined ? [error] : []);
    if (errors.length < answers.length) return { answers };
    throw errors.find((error) => fatalStartReason(error) !== undefined) ?? errors[0];
  }

  /** The timeline, on an open connection to `primary`; throws NOT_PRIMARY for any other role. */
  async check(connection: Queryable): Promise<number> {
    const [row] = await connection.query<HostRoleRow>(HOST_ROLE_QUERY);
    const role = this.#role(row);
    if (role === "primary") return Number(row.timeline);
    const message = `the database host ${this.#primary!.host.name} ${describeRole(role)}`;
    throw new CodedError("NOT_PRIMARY", message);
  }

  #role(row: HostRoleRow): HostRole {
    if (row.recovery) return "standby";
    return this.#readWrite && row.read_only === "on" ? "read_only" : "primary";
  }

  /** One host's role, on connections of its own that are closed afterwards; never rejects. */
  async #ask(candidate: Candidate): Promise<HostAnswer> {
    const { host, config } = candidate;
    try {
      if (sslMode(config) !== "prefer") return { host, role: await this.#askRole(config) };
      // libpq's `prefer` (TLS if the server has it; node-postgres has none), learnt once.
      const tls: HostConfig = { ...config, ssl: "require" };
      const role = await this.#askRole(tls).catch((error) => {
        if ((error as Error | undefined)?.message === NO_TLS) return undefined;
        throw error;
      });
      candidate.config = role === undefined ? { ...config, ssl: "disable" } : tls;
      return { host, role: role ?? await this.#askRole(candidate.config) };
    } catch (error) {
      return { host, error };
    }
  }

  async #askRole(config: HostConfig): Promise<HostRole> {
    const db = new Database({ ...config, poolSize: 1 }, { applicationName: "animal-store" });
    try {
      const deadline = db.deadline() ?? performance.now() + CONNECT_TIMEOUT_MS;
      const [row] = await db.query<HostRoleRow>(HOST_ROLE_QUERY, undefined, deadline);
      return this.#role(row);
    } finally {
      await db.end();
    }
  }
}

/** `work` on the primary, one connection with no deadline, for a command; ended after. */
export async function withPrimary<T>(
  config: DatabaseConfig,
  applicationName: string,
  work: (db: Database) => Promise<T>,
): Promise<T> {
  const { primary, answers } = await new PrimaryFinder(config).find();
  if (primary === undefined) {
    const hosts = answers.map(({ host, role, error }) =>
      role === undefined
        ? `${host.name}: ${describeDatabaseError(error)}`
        : `${host.name} ${describeRole(role)}`
    );
    throw new Error(`no host of DATABASE_URL is a writable primary: ${hosts.join("; ")}`);
  }
  const db = new Database({ ...primary.config, poolSize: 1 }, { applicationName, deadline: false });
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

// ---- The ids ----

export const TIMELINE_ID_SPAN = 2 ** 40;

/** How many of its latest acknowledged ids an instance remembers, to tell which a failover lost. */
export const ACKNOWLEDGED_MEMORY = 100_000;

/** Unless another instance moved it first. In numeric: int8 overflows past 2^63. */
const ENTER_TIMELINE = `
  UPDATE pet_id_counter SET
    range_start = jump.start, last_id = GREATEST(last_id, jump.start), timeline = $1
  FROM (
    SELECT GREATEST(c.last_id, LEAST(
      c.range_start::numeric + $3::numeric *
        CASE WHEN $1::bigint > c.timeline THEN $1::bigint - c.timeline ELSE 1 END,
      $2::numeric))::bigint AS start
    FROM pet_id_counter c LIMIT 1
  ) jump
  WHERE timeline <> $1
  RETURNING range_start`;

/** Puts the counter on `timeline`'s range; the new start, if it moved. */
export async function enterTimeline(
  connection: Queryable,
  timeline: number,
): Promise<number | undefined> {
  const values = [timeline, String(MAX_PET_ID), String(TIMELINE_ID_SPAN)];
  const [row] = await connection.query<{ range_start: string }>(ENTER_TIMELINE, values);
  return row === undefined ? undefined : Number(row.range_start);
}

/** The latest ids this instance acknowledged, as ranges, oldest forgotten first. */
export class AcknowledgedIds {
  #ranges: [number, number][] = [];
  #count = 0;

  /** Ids `first` to `last`, both included, were answered 201. */
  add(first: number, last: number): void {
    const tail = this.#ranges.at(-1);
    if (tail !== undefined && tail[1] + 1 === first) tail[1] = last;
    else this.#ranges.push([first, last]);
    this.#count += last - first + 1;
    while (this.#count > ACKNOWLEDGED_MEMORY) {
      const head = this.#ranges[0];
      const drop = Math.min(head[1] - head[0] + 1, this.#count - ACKNOWLEDGED_MEMORY);
      head[0] += drop;
      this.#count -= drop;
      if (head[0] > head[1]) this.#ranges.shift();
    }
  }

  ranges(): [number, number][] {
    return this.#ranges.map(([first, last]) => [first, last]);
  }

  /** Once they have been checked against a new primary. */
  clear(): void {
    this.#ranges = [];
    this.#count = 0;
  }
}

/** Which ids of `ranges` the database holds no pet for, in increasing order. */
export async function missingIds(
  connection: Queryable,
  ranges: readonly [number, number][],
): Promise<number[]> {
  if (ranges.length === 0) return [];
  const rows = await connection.query<{ id: string }>(
    `SELECT g.id FROM unnest($1::bigint[], $2::bigint[]) AS r(low, high),
       generate_series(r.low, r.high) AS g(id)
     WHERE NOT EXISTS (SELECT 1 FROM pets p WHERE p.id = g.id)
     ORDER BY g.id`,
    [ranges.map(([low]) => String(low)), ranges.map(([, high]) => String(high))],
  );
  return rows.map((row) => Number(row.id));
}

/** `1001–1648, 1650`: increasing ids, runs of consecutive ones as one range. */
export function describeIds(ids: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < ids.length;) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j] + 1) j++;
    parts.push(i === j ? String(ids[i]) : `${ids[i]}–${ids[j]}`);
    i = j + 1;
  }
  return parts.join(", ");
}
