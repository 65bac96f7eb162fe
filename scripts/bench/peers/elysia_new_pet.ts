/**
 * The NewPet body in Elysia's `t` (its own TypeBox), as both Elysia peers declare it on
 * `POST /v1/pets`: Elysia compiles it and checks every body before the handler runs.
 * Dev-only benchmark code.
 */
import { t } from "elysia";

export const ElysiaNewPet = t.Object({
  name: t.String({ minLength: 1, maxLength: 200 }),
  categoryId: t.Integer({
    minimum: Number.MIN_SAFE_INTEGER,
    maximum: Number.MAX_SAFE_INTEGER,
  }),
  status: t.Optional(
    t.Union([t.Literal("available"), t.Literal("pending"), t.Literal("sold")]),
  ),
}, { additionalProperties: false });
