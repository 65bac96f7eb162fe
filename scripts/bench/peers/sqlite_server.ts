/**
 * Durable creates with bun:sqlite (WAL, synchronous=FULL: every commit is fsync'd before
 * `run()` returns), served by `Bun.serve` with the same auth and TypeBox check as the other
 * peers: one autocommit INSERT per `POST /v1/pets`. The data file is `DATA_DIR/pets.db`.
 * Listens on `HOST`:`PORT`. Dev-only benchmark peer (Bun only).
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import process from "node:process";
import { isAuthorized, isNewPet, listenAddress, UNAUTHORIZED_BODY } from "./pet_fixture.ts";

declare const Bun: { serve(options: object): unknown };

const db = new Database(join(process.env.DATA_DIR ?? ".", "pets.db"));
db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
db.exec(
  "CREATE TABLE IF NOT EXISTS pets (id INTEGER PRIMARY KEY, name TEXT NOT NULL, " +
    "category_id INTEGER NOT NULL, status TEXT)",
);
const insert = db.prepare(
  "INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING id",
);
const json = { "content-type": "application/json" };
const { port, host } = listenAddress();

Bun.serve({
  port,
  hostname: host,
  async fetch(request: Request) {
    if (!isAuthorized(request.headers.get("authorization"))) {
      return new Response(UNAUTHORIZED_BODY, { status: 401, headers: json });
    }
    if (request.method !== "POST" || new URL(request.url).pathname !== "/v1/pets") {
      return new Response('{"code":"not_found"}', { status: 404, headers: json });
    }
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return new Response('{"code":"invalid_body"}', { status: 400, headers: json });
    }
    if (!isNewPet(body)) {
      return new Response('{"code":"validation_failed"}', { status: 400, headers: json });
    }
    const row = insert.get(body.name, body.categoryId, body.status ?? null) as { id: number };
    const pet = { id: row.id, ...body };
    return new Response(JSON.stringify(pet), {
      status: 201,
      headers: { ...json, location: `/v1/pets/${row.id}` },
    });
  },
});
