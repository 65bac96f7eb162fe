/**
 * The Hono peer on PostgreSQL (`hono_postgres_app.ts` on `DATABASE_URL`), served on this runtime
 * (`hono_serve.ts`). Dev-only benchmark peer.
 */
import { createHonoPostgresApp } from "./hono_postgres_app.ts";
import { serveHono } from "./hono_serve.ts";
import { openPetTable } from "./pet_table.ts";

await serveHono(createHonoPostgresApp(await openPetTable()));
