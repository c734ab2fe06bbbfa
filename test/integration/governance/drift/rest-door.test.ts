// The drift refusal and warning through the app's own call wiring (call-gateway.ts) behind POST /v1/call:
// a gateway started after the upstream changed reads its tools/list on first use and refuses the tool.
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCallModule } from "../../../../lambdas/http/routes/call.js";
import { startTestApi, type TestApi } from "../../../helpers/api.js";
import { ORIGINAL, pulledRegistry, startDriftingUpstream, type DriftingUpstream, type PulledRegistry } from "./upstream.js";

let up: DriftingUpstream;
let registry: PulledRegistry;
let api: TestApi;
let close: () => Promise<void>;

beforeAll(async () => {
  up = await startDriftingUpstream();
  registry = await pulledRegistry(up);
  const artifact = await registry.built();
  // Changed after the pull and before the gateway's cold start.
  up.state = { ...ORIGINAL, widened: true };
  const call = createCallModule({ env: { UP_URL: up.url } });
  close = () => call.close();
  api = await startTestApi({ input: { families: [...artifact.families], tools: [...artifact.tools], always_loaded: [] }, extraRoutes: [call] });
});

afterAll(async () => {
  await close();
  await api.close();
  await up.close();
  await rm(registry.dir, { recursive: true, force: true });
});

const audits = () => api.logger.entries.filter((e) => e.message === "call").map((e) => e.fields);

describe("drift behind POST /v1/call", () => {
  it("refuses the changed tool with 502 UPSTREAM_DRIFT naming what changed, runs nothing upstream, and audits it", async () => {
    const res = await api.request("/v1/call", { json: { tool: "up.lookup", args: { id: "a1" } } });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { code: "UPSTREAM_DRIFT", details: { tool: "up.lookup", drift: ["input_schema"] } } });
    expect(up.calls).toBe(0);
    expect(audits().at(-1)).toMatchObject({ tool: "up.lookup", outcome: "UPSTREAM_DRIFT", status: 502, drift: ["input_schema"], Code: "UPSTREAM_DRIFT" });
  });

  it("runs the changed tool of a `drift: warn` family, with a warning in the log and drift in the audit record", async () => {
    const res = await api.request("/v1/call", { json: { tool: "lenient.lookup", args: { id: "b2" } } });
    expect(res.status).toBe(200);
    expect(up.calls).toBe(1);
    expect(api.logger.entries.find((e) => e.level === "warn" && /drift/.test(e.message))?.fields).toMatchObject({
      tool: "lenient.lookup",
      drift: ["input_schema"],
    });
    expect(audits().at(-1)).toMatchObject({ tool: "lenient.lookup", outcome: "OK", drift: ["input_schema"] });
  });
});
