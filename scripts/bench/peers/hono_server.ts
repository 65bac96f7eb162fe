/**
 * The as-is Hono peer (`hono_app.ts`), served on this runtime (`hono_serve.ts`). Dev-only
 * benchmark peer.
 */
import { createHonoApp } from "./hono_app.ts";
import { serveHono } from "./hono_serve.ts";

await serveHono(createHonoApp());
