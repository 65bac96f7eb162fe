/**
 * No id given to two pets across a lossy failover. With asynchronous replication, a promoted
 * standby may lack the last batches the old primary committed and answered 201, and with them the
 * counter's last updates: counting on from its counter would hand those ids out again, to other
 * pets. The new primary cannot know how far the old one went, so the bound is by construction:
 *
 *   - The counter row keeps the timeline it was last written on (`timeline`) and where that
 *     timeline's ids began (`range_start`). On a timeline, ids never pass
 *     `range_start + TIMELINE_ID_SPAN` (the batch statement caps them: create_batches.ts).
 *   - A promotion starts a new, higher timeline. On the first connection to a host whose timeline
 *     differs from the row's, the counter moves to
 *     `range_start + (new timeline − row's timeline) × TIMELINE_ID_SPAN` (at least one span).
 *
 * Why that is past every id the old primary acknowledged: the row the new primary holds is one
 * the old primary wrote (replication copies a prefix of its history). From that row on, the old
 * primary moved at most once per timeline it entered, each move exactly one span per timeline
 * step (its counter was below its range's end, by the cap), and it was on a timeline lower than
 * the new one; so every id it gave is below the new range's start. This holds whichever instance
 * gave the id and whether or not it restarted since: the state is in the database, not in any
 * instance. Ids stay increasing in creation order; the jump leaves a gap.
 *
 * The span, 2^40 (about 1.1 × 10^12 ids): a timeline runs out of ids only after that many creates
 * without a failover, and ids reach the 2^53 − 1 ceiling only after 8,191 timeline steps. A new
 * database starts at timeline-relative 0, so its first id is still 1.
 *
 * The check runs when a connection is opened (database.ts's `checkConnection`), not per batch: a
 * timeline changes only by a promotion or a restore, and the service's connections to the old
 * server are gone by then. So the create path keeps its one statement per batch.
 *
 * Each instance also remembers the ids it acknowledged recently (ACKNOWLEDGED_MEMORY ids) and,
 * on a new timeline, asks the new primary which of them it lacks: one `error` line names them
 * and they are counted, so an operator knows which pets to enter again.
 */
import type { Queryable } from "./database.ts";
import { MAX_PET_ID } from "../store.ts";

/** Ids one timeline may give; see the module comment. */
export const TIMELINE_ID_SPAN = 2 ** 40;

/** How many of its latest acknowledged ids an instance remembers, to tell which a failover lost. */
export const ACKNOWLEDGED_MEMORY = 100_000;

/**
 * Moves the counter to the range of `timeline` unless the row is on it already (another instance
 * moved it first: the row lock orders them). int8 arithmetic overflows past 2^63, so the jump is
 * reckoned in numeric and capped at the id ceiling.
 */
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

/** Puts the counter on `timeline`'s range (see the module comment); the new start, if it moved. */
export async function enterTimeline(
  connection: Queryable,
  timeline: number,
): Promise<number | undefined> {
  const rows = await connection.query<{ range_start: string }>(ENTER_TIMELINE, [
    timeline,
    String(MAX_PET_ID),
    String(TIMELINE_ID_SPAN),
  ]);
  return rows.length === 0 ? undefined : Number(rows[0].range_start);
}

/**
 * The latest ids this instance acknowledged, as ranges (a batch's ids are consecutive), at most
 * ACKNOWLEDGED_MEMORY ids: the oldest are forgotten first.
 */
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

  /** The ranges remembered, oldest first. */
  ranges(): [number, number][] {
    return this.#ranges.map(([first, last]) => [first, last]);
  }

  /** Forgets them all (once they have been checked against a new primary). */
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
