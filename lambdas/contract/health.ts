// GET /v1/health: the artifact's manifest, so a deployment says which registry it serves.
import * as z from "../core/zod-mini.js";
import { int } from "./schema.js";

export const HealthResponse = z.object({
  status: z.literal("ok"),
  format_version: int(),
  registry_hash: z.string(),
  counts: z.object({ families: int(), tools: int() }),
  always_loaded: z.array(z.string()),
  skipped_families: z.array(z.string()),
});
export type HealthResponse = z.infer<typeof HealthResponse>;
