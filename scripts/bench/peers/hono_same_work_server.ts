/**
 * The same-work Hono peer (`hono_same_work_app.ts`), served on this runtime (`hono_serve.ts`).
 * Dev-only benchmark peer.
 */
import { createHonoSameWorkApp } from "./hono_same_work_app.ts";
import { serveHono } from "./hono_serve.ts";

await serveHono(createHonoSameWorkApp());
