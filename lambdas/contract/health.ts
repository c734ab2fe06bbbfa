// GET /v1/health: whether the gateway can serve, and which registry it serves; GET /v1/health/live: that it runs.
import * as z from "../core/zod-mini.js";
import { int } from "./schema.js";

const counts = () => z.object({ families: int(), tools: int() });
const check = { ok: z.boolean(), latency_ms: z.optional(z.number()), error: z.optional(z.string()), note: z.optional(z.string()) };

export const HealthChecks = z.object({
  table: z.object(check),
  upstreams: z.array(z.object({ family: z.string(), ...check })),
  models: z.array(z.object({ role: z.string(), ...check })),
  checked_at: z.string(),
});

export const HealthResponse = z.object({
  status: z.enum(["ok", "degraded"]),
  artifact: z.object({
    format_version: int(),
    registry_hash: z.string(),
    built_at: z.optional(z.string()),
    counts: counts(),
  }),
  format_version: int(),
  registry_hash: z.string(),
  counts: counts(),
  always_loaded: z.array(z.string()),
  skipped_families: z.array(z.string()),
  /** Admin key only: `upstream <family>`, `model <role>`. */
  down: z.optional(z.array(z.string())),
  /** Admin key only. */
  checks: z.optional(HealthChecks),
});
export type HealthResponse = z.infer<typeof HealthResponse>;

export const LiveResponse = z.object({ status: z.literal("ok") });
export type LiveResponse = z.infer<typeof LiveResponse>;
