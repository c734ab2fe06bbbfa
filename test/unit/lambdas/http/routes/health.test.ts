// routes/health.ts's verdict: who is an admin is decided as at every other door, with the gateway's
// own resources (a JWT issued for this gateway, in a deployment without identity.audience, is one).
import { describe, expect, it } from "vitest";
import type { Deps } from "../../../../../lambdas/http/deps.js";
import { healthChecksFor } from "../../../../../lambdas/http/routes/health.js";

const OWN = "https://gw.example";

/** Deps with nothing to probe but the table, and a policy that knows a caller only for this gateway's resources. */
function deps(seen: (readonly string[] | undefined)[]): Omit<Deps, "health"> {
  return {
    store: { get: async () => undefined },
    artifact: { families: [], tools: [] },
    models: { roles: () => [], get: () => undefined, unavailable: () => undefined },
    clock: () => 1_000_000,
    config: { origins: { own: [OWN] } },
    policy: {
      authenticate: async (_authorization: string | undefined, resources?: readonly string[]) => {
        seen.push(resources);
        if (!resources?.includes(`${OWN}/mcp`) || !resources.includes(OWN)) throw new Error("token not for this resource");
        return { principal: "admin-jwt", admin: true };
      },
    },
  } as unknown as Omit<Deps, "health">;
}

describe("GET /v1/health's verdict", () => {
  it("authenticates with the gateway's resources, so a JWT admin without identity.audience sees what is down", async () => {
    const seen: (readonly string[] | undefined)[] = [];
    const answer = await healthChecksFor(deps(seen), {}).answer("Bearer a.jwt.token");
    expect(seen).toEqual([[OWN, `${OWN}/mcp`]]);
    expect(answer).toMatchObject({ status: "ok", down: [], checks: { table: { ok: true } } });
  });

  it("shows an unknown caller the status only", async () => {
    const answer = await healthChecksFor(deps([]), {}).answer(undefined);
    expect(answer).toEqual({ status: "ok" });
  });
});
