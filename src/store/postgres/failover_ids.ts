/**
 * No id given to two pets across a lossy failover: a promoted standby may lack the old primary's
 * last batches and counter updates, and cannot know how far it went. So the bound is by
 * construction. The counter row keeps its `timeline` and that timeline's `range_start`; on a
 * timeline ids never pass `range_start + TIMELINE_ID_SPAN` (the batch statement caps them); on the
 * first connection to a newer timeline the counter moves one span per timeline step.
 *
 * Why that is past every id the old primary gave: the new primary's row is one the old primary
 * wrote (replication copies a prefix), from which the old one moved at most one span per step
 * and stayed below its range's end, on a lower timeline. The state is in the database, so this
 * holds whichever instance gave the id. 2^40 ids per span: the 2^53 − 1 ceiling comes only after
 * 8,191 steps.
 *
 * Checked per new connection, not per batch (a timeline changes only with a promotion or a
 * restore, which drops our connections), so a create stays one statement. The ids acknowledged
 * lately that the new primary lacks are logged, so an operator knows which pets to enter again.
 */
import type { Queryable } from "./database.ts";
import { MAX_PET_ID } from "../store.ts";

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
