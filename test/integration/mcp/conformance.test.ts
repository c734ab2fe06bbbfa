// The official MCP conformance suite against /mcp: every server scenario of the released suite (0.1.16,
// revision 2025-11-25) and the 0.2 alpha's 2026-07-28 requirement set, run on Node 24 against the example
// registry's gateway on 127.0.0.1 (Host and Origin checked as `npm start` checks them), through a loopback
// proxy that adds the bearer key the suite cannot send. Every check of every scenario must pass, except
// those listed below as not applying to a gateway, each with its reason.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CONFORMANCE,
  conformanceCli,
  listServerScenarios,
  node24,
  runConformance,
  startAuthProxy,
  startExampleGateway,
  type ScenarioResult,
} from "../../helpers/conformance.js";

const KEY = "conformance-key-0123456789";

const FIXTURE_TOOL = "calls a fixture tool of the suite's reference server (test_*); a gateway serves its registry's tools, not those";
const NO_RESOURCES = "the gateway serves no resources (it declares the tools capability only)";
const NO_PROMPTS = "the gateway serves no prompts (it declares the tools capability only)";
const ASKS_CLIENT =
  "a fixture tool that asks the client mid-call (sampling, elicitation, roots); no gateway tool does, and a stateless JSON answer has no stream to ask on";

/** Scenarios that do not apply to a gateway, by name (both suites), with the reason. */
const NOT_APPLICABLE: Record<string, string> = {
  "logging-set-level": "the gateway declares no logging capability: a stateless endpoint keeps no level and has no stream for log notifications",
  "completion-complete": "completions are for prompt and resource-template arguments, and the gateway serves neither",
  "tools-call-simple-text": FIXTURE_TOOL,
  "tools-call-image": FIXTURE_TOOL,
  "tools-call-audio": FIXTURE_TOOL,
  "tools-call-embedded-resource": FIXTURE_TOOL,
  "tools-call-mixed-content": FIXTURE_TOOL,
  "tools-call-error": FIXTURE_TOOL,
  "tools-call-with-progress": FIXTURE_TOOL,
  "tools-call-with-logging": FIXTURE_TOOL,
  "json-schema-2020-12": `${FIXTURE_TOOL} (json_schema_2020_12_tool)`,
  "tools-call-sampling": ASKS_CLIENT,
  "tools-call-elicitation": ASKS_CLIENT,
  "elicitation-sep1034-defaults": ASKS_CLIENT,
  "elicitation-sep1330-enums": ASKS_CLIENT,
  "input-required-result-basic-elicitation": ASKS_CLIENT,
  "input-required-result-basic-sampling": ASKS_CLIENT,
  "input-required-result-basic-list-roots": ASKS_CLIENT,
  "input-required-result-request-state": ASKS_CLIENT,
  "input-required-result-multiple-input-requests": ASKS_CLIENT,
  "input-required-result-multi-round": ASKS_CLIENT,
  "input-required-result-result-type": ASKS_CLIENT,
  "input-required-result-tampered-state": ASKS_CLIENT,
  "input-required-result-capability-check": ASKS_CLIENT,
  "input-required-result-non-tool-request": `${ASKS_CLIENT}; here from prompts/get, which the gateway does not serve`,
  "resources-list": NO_RESOURCES,
  "resources-read-text": NO_RESOURCES,
  "resources-read-binary": NO_RESOURCES,
  "resources-templates-read": NO_RESOURCES,
  "resources-subscribe": NO_RESOURCES,
  "resources-unsubscribe": NO_RESOURCES,
  "prompts-list": NO_PROMPTS,
  "prompts-get-simple": NO_PROMPTS,
  "prompts-get-with-args": NO_PROMPTS,
  "prompts-get-embedded-resource": NO_PROMPTS,
  "prompts-get-with-image": NO_PROMPTS,
  "http-custom-header-server-validation": "pending in the suite; needs a tool with x-mcp-header annotations, and no registry tool declares one",
};
for (const name of [
  "lifecycle",
  "capability-negotiation",
  "wire-fields",
  "request-state-removal",
  "mrtr-input",
  "request-headers",
  "dispatch-and-envelope",
  "status-notifications",
  "required-task-error",
  "mrtr-composition",
]) {
  NOT_APPLICABLE[`tasks-${name}`] = "the tasks extension (not scored for 2026-07-28): the gateway declares no tasks capability";
}

/** Checks that do not apply inside scenarios that do, as `scenario/check`, with the reason. */
const NOT_APPLICABLE_CHECKS: Record<string, string> = {
  "server-stateless/sep-2575-server-rejects-undeclared-capability": `${FIXTURE_TOOL} (test_missing_capability)`,
  "server-stateless/sep-2575-missing-capability-http-400": `${FIXTURE_TOOL} (test_missing_capability)`,
  "server-stateless/sep-2575-http-server-no-independent-requests-on-stream": `${FIXTURE_TOOL} (test_streaming_elicitation)`,
  "server-stateless/sep-2575-server-no-log-without-loglevel": `${FIXTURE_TOOL} (test_logging_tool)`,
  "caching/sep-2549-prompts-list-caching-hints": NO_PROMPTS,
  "caching/sep-2549-resources-list-caching-hints": NO_RESOURCES,
  "caching/sep-2549-resources-templates-list-caching-hints": NO_RESOURCES,
};

const RUNS = [
  { name: "0.1.16, every server scenario (2025-11-25)", package: CONFORMANCE.stable, args: ["--suite", "all"], list: ["--server"] },
  {
    name: "0.2.0-alpha.12, the 2026-07-28 requirement set",
    package: CONFORMANCE.next,
    args: ["--requirements", "2026-07-28"],
    list: ["--server", "--requirements", "2026-07-28"],
  },
];

let node = "";
let gateway: Awaited<ReturnType<typeof startExampleGateway>>;
let proxy: Awaited<ReturnType<typeof startAuthProxy>>;
/** Each run's CLI file, by run name (fetched in beforeAll). */
const clis = new Map<string, string>();
/** The server scenarios each run's CLI lists, by run name. */
const listed = new Map<string, string[]>();

beforeAll(async () => {
  // The first run on a machine fetches the Node 24 package into npm's cache.
  [node, gateway] = await Promise.all([node24(), startExampleGateway(KEY)]);
  proxy = await startAuthProxy(gateway.url, KEY);
  for (const run of RUNS) {
    clis.set(run.name, await conformanceCli(run.package));
    listed.set(run.name, await listServerScenarios(node, clis.get(run.name)!, run.list));
  }
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await gateway?.close();
});

/** Checks that hold in every scenario, one that does not apply included: each message the gateway sent is valid per the spec's schema. */
const EVERYWHERE = new Set(["wire-schema-valid"]);

/** Each failed check that applies, as `scenario/check: message`. */
function failures(results: ScenarioResult[]): string[] {
  return results.flatMap(({ scenario, checks }) =>
    checks
      .filter((c) => c.status === "FAILURE")
      .filter((c) => EVERYWHERE.has(c.id) || !(NOT_APPLICABLE[scenario] || NOT_APPLICABLE_CHECKS[`${scenario}/${c.id}`]))
      .map((c) => `${scenario}/${c.id}: ${c.errorMessage ?? JSON.stringify(c.details)}`),
  );
}

describe.each(RUNS)("the MCP conformance suite $name", ({ name, args }) => {
  it("passes every check of every scenario that applies to a gateway", async () => {
    const { results, output } = await runConformance(node, clis.get(name)!, `${proxy.url}/mcp`, args, 60_000);
    const scenarios = listed.get(name) ?? [];
    // Every listed scenario ran (a CLI that failed to start would otherwise pass with no results).
    expect(scenarios.length, output).toBeGreaterThan(25);
    expect(results.map((r) => r.scenario).sort(), output).toEqual([...scenarios].sort());
    expect(failures(results)).toEqual([]);
  }, 120_000);
});

it("names only scenarios the suites have", () => {
  const known = new Set([...listed.values()].flat());
  const named = [...Object.keys(NOT_APPLICABLE), ...Object.keys(NOT_APPLICABLE_CHECKS).map((k) => k.slice(0, k.indexOf("/")))];
  expect(named.filter((s) => !known.has(s))).toEqual([]);
});
