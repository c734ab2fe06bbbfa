// GET /v1/health: whether the gateway can serve, and which registry it serves; GET /v1/health/live: that it runs.
import * as z from "../core/zod-mini.js";
import { described, int } from "./schema.js";

const counts = () => z.object({ families: int(), tools: int() });
const check = {
  ok: z.boolean(),
  latency_ms: z.optional(z.number()),
  error: described(z.optional(z.string()), "Why it is down"),
  note: described(z.optional(z.string()), "Why it was not probed (then ok)"),
};

export const HealthChecks = z.object({
  table: z.object(check),
  upstreams: described(z.array(z.object({ family: z.string(), kind: z.string(), ...check })), "Each family's upstream: http and MCP reached, the rest ok"),
  models: z.array(z.object({ role: z.string(), ...check })),
  checked_at: described(z.string(), "When the probes ran: their answer is kept 30 s for every caller"),
});

export const HealthResponse = z.object({
  status: described(z.enum(["ok", "degraded"]), "degraded: an upstream or a model role is down (an admin key sees which); the table down is 503"),
  artifact: z.object({
    format_version: int(),
    registry_hash: z.string(),
    built_at: described(z.optional(z.string()), "When the artifact was written"),
    counts: counts(),
  }),
  format_version: int(),
  registry_hash: z.string(),
  counts: counts(),
  always_loaded: z.array(z.string()),
  skipped_families: z.array(z.string()),
  down: described(z.optional(z.array(z.string())), "Admin key only: what is down (`upstream <family>`, `model <role>`)"),
  checks: described(z.optional(HealthChecks), "Admin key only: every check"),
});
export type HealthResponse = z.infer<typeof HealthResponse>;

export const LiveResponse = z.object({ status: z.literal("ok") });
export type LiveResponse = z.infer<typeof LiveResponse>;
