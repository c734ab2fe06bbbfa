// What an MCP client hands its model, tools/list plus the server's instructions, stays within the
// surface's token budget (1,500 o200k tokens, README "Token economy"): the example registry with the
// code-review brief (8 declared tools), and with 400 more families, through a real listening server and
// the official SDK client. The instructions' manifest gets what the list leaves of the budget.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ArtifactInput } from "../../../build/artifact.js";
import { compileRegistry } from "../../../build/build.js";
import { countTokens } from "../../../build/tokens.js";
import { DEFAULT_SURFACE_BOUNDS } from "../../../lambdas/config.js";
import { createMcpModule, type McpModule } from "../../../lambdas/http/routes/mcp.js";
import { BriefFile } from "../../../registry/contract/brief.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../helpers/api.js";
import { testArtifactInput, testTool } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { EXAMPLE_REGISTRY, isExampleFamily } from "../../helpers/example-registry.js";
import { connect } from "./fixture.js";

const codeReview = BriefFile.parse(parseYaml(readFileSync(join(EXAMPLE_REGISTRY, "briefs/code-review.yaml"), "utf8")));
const BULK_FAMILIES = 400;

/** 400 families of three tools each, with descriptions as long as a real family's first sentence. */
function bulkFamilies(): ArtifactInput {
  const tools = Array.from({ length: BULK_FAMILIES }, (_, i) =>
    ["create", "list", "delete"].map((verb) =>
      testTool(`service${i}.${verb}`, { description: `${verb} the records of service ${i}, with filters, paging and sorting by any field.` }),
    ),
  ).flat();
  const descriptions = Object.fromEntries(
    Array.from({ length: BULK_FAMILIES }, (_, i) => [`service${i}`, `Manage the records of internal service ${i}: create, list and delete them.`]),
  );
  return testArtifactInput(tools, { descriptions });
}

let dynamo: TestDynamo;
let mcp: McpModule;
const apis: Record<"example" | "many", TestApi> = {} as never;

beforeAll(async () => {
  const built = await compileRegistry(EXAMPLE_REGISTRY);
  const { catalog, alwaysLoaded } = built.registry;
  const example: ArtifactInput = {
    families: catalog.families.filter((f) => isExampleFamily(f.name)),
    tools: catalog.tools.filter((t) => isExampleFamily(t.family)),
    always_loaded: alwaysLoaded,
  };
  const bulk = bulkFamilies();
  dynamo = await startDynalite();
  mcp = createMcpModule({ env: {}, exec: false });
  const start = (input: ArtifactInput) => startTestApi({ input, emit: { countTokens: true }, briefs: [codeReview], dynamo, extraRoutes: [mcp] });
  apis.example = await start(example);
  apis.many = await start({ ...example, families: [...example.families, ...bulk.families], tools: [...example.tools, ...bulk.tools] });
}, 60_000);

afterAll(async () => {
  await Promise.all(Object.values(apis).map((a) => a.close()));
  await mcp.close();
  await dynamo.close();
});

/** o200k tokens of tools/list (as JSON) and of the instructions, as a client receives them. */
async function handed(api: TestApi, path: string) {
  const client = await connect(api.url + path, TEST_KEYS.alice, "2026-07-28");
  try {
    const { tools } = await client.listTools();
    return { tools, list: countTokens(JSON.stringify({ tools })), instructions: countTokens(client.instructions() ?? "") };
  } finally {
    await client.close();
  }
}

describe("MCP tools/list + instructions within the surface's token budget", () => {
  it.each([
    ["the example registry, code-review brief", "example", "/mcp/briefs/code-review"],
    ["the example registry and 400 more families, no brief", "many", "/mcp"],
    ["the example registry and 400 more families, code-review brief", "many", "/mcp/briefs/code-review"],
  ] as const)("regression: %s was up to 2,032 tokens (find_tool and call_tool from the zod contracts, the manifest sized for REST)", async (_, api, path) => {
    const { tools, list, instructions } = await handed(apis[api], path);
    if (path.includes("code-review")) expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(codeReview.tools.map((n) => n.replace(".", "_"))));
    expect(list + instructions, `${list} + ${instructions}`).toBeLessThanOrEqual(DEFAULT_SURFACE_BOUNDS.maxTokens);
    // The manifest is cut to fit, never dropped: its closing line says find_tool reaches every family.
    expect(instructions).toBeGreaterThan(0);
  });

  it("gives the instructions' manifest what the list leaves: most of the budget without a brief, only the closing line with a full one", async () => {
    const open = await handed(apis.many, "/mcp");
    const briefed = await handed(apis.many, "/mcp/briefs/code-review");
    expect(open.list + open.instructions).toBeGreaterThan(DEFAULT_SURFACE_BOUNDS.maxTokens * 0.7);
    expect(briefed.instructions).toBeLessThan(open.instructions);
  });
});
