// Issue 27: an imported operation's long description, as its `details`, a search field of its own weighed well
// below the description. A request worded only as the long text words it reaches the operation; an incidental
// word there does not beat a summary's match; a catalog without details indexes as before.
import { describe, expect, it } from "vitest";
import { emitArtifact } from "../../../../../build/artifact.js";
import { familyFromOpenApi, operationsOf } from "../../../../../build/openapi/operations.js";
import { buildSearchIndex } from "../../../../../build/search-index.js";
import { catalogFromJsonl } from "../../../../../build/sources/jsonl.js";
import { artifactFromFiles } from "../../../../../lambdas/artifact.js";
import { createFinder } from "../../../../../lambdas/core/find/index.js";

/** An API's operations: name, summary, and the long description the importer keeps as details. */
const ROWS: [string, string, string?][] = [
  [
    "repos.get-collaborator-permission-level",
    "Get repository permissions for a user.",
    "Checks the role a collaborator holds on the repository: admin, maintain, write, triage or read. Teams and organization owners grant roles too.",
  ],
  ["repos.list-collaborators", "List repository collaborators.", "Lists the people who can push to the repository, organization members with access included."],
  ["repos.get", "Get a repository."],
  ["repos.list-deployments", "List deployments.", "Simple filtering of deployments is available via query parameters."],
  [
    "repos.create-webhook",
    "Create a repository webhook.",
    "Webhooks deliver events such as pushes, releases and deployments to the URL you choose; deployments and deployment statuses each send their own event.",
  ],
  ["issues.create", "Create an issue.", "Any user with pull access to a repository can create an issue."],
  ["issues.list-for-repo", "List repository issues.", "Pull requests are issues too and are listed unless you filter them out."],
  ["releases.create", "Create a release.", "Users with push access to the repository can create a release from a tag."],
];

async function finderOf(withDetails: boolean) {
  const catalog = catalogFromJsonl(
    ROWS.map(([name, description]) => ({ name, description, input_schema: { type: "object", properties: {} } })),
    { source: "api.jsonl" },
  );
  if (withDetails) catalog.tools.forEach((t, i) => ROWS[i]![2] !== undefined && (t.details = ROWS[i]![2]));
  const artifact = artifactFromFiles(await emitArtifact({ families: catalog.families, tools: catalog.tools, always_loaded: [] }));
  return createFinder(artifact, { alwaysLoaded: [] });
}

describe("an imported operation's details", () => {
  it("are the long description after the summary, as plain text, cut at a sentence end", () => {
    // Prepare
    const doc = {
      paths: {
        "/perm": {
          get: {
            operationId: "repos/get-permission",
            summary: "Get repository permissions for a user",
            description:
              "Get repository permissions for a user.\n\nChecks the **role** a [collaborator](https://docs.github.com/x) holds: `admin`, `write` or `read`.\n\n> [!NOTE]\n> Teams grant roles too.",
            responses: {},
          },
        },
        "/plain": { get: { operationId: "plain", summary: "Plain", responses: {} } },
      },
    };
    // Act
    const tools = familyFromOpenApi(doc, "x", operationsOf(doc).operations).tools;
    // Assess
    expect(tools.map((t) => [t.name, t.description, t.details])).toEqual([
      ["plain", "Plain", undefined],
      ["repos.get-permission", "Get repository permissions for a user", "Checks the role a collaborator holds: admin, write or read. Teams grant roles too."],
    ]);
  });

  it("bring a request worded only in them to the operation, and explain names the field", async () => {
    // Prepare
    const [withDetails, without] = [await finderOf(true), await finderOf(false)];
    const query = "is alice an admin or only triage on acme/api";
    // Act
    const [r, before] = [
      await withDetails.find({ query, min_score: 0, schemas: false, explain: true }),
      await without.find({ query, min_score: 0, schemas: false }),
    ];
    // Assess: without the field no tool says admin or triage.
    expect(before.tools.map((t) => t.name)).not.toContain("imported.repos.get-collaborator-permission-level");
    expect(r.tools[0]!.name).toBe("imported.repos.get-collaborator-permission-level");
    expect(r.tools[0]!.explain).toContainEqual({ word: "admin", fields: ["details"] });
  });

  it("do not let an incidental word beat a summary's match", async () => {
    // Prepare: the webhook's details say "deployments" twice, and pull and push access come up in passing.
    const f = await finderOf(true);
    const asked = { "list the deployments": "repos.list-deployments", "create an issue": "issues.create", "create a release": "releases.create" };
    // Act
    const tops = await Promise.all(Object.keys(asked).map(async (query) => (await f.find({ query, min_score: 0, schemas: false })).tools[0]!.name));
    // Assess
    expect(tops).toEqual(Object.values(asked).map((t) => `imported.${t}`));
  });

  it("leave a catalog without them indexed as before: the idf reads every field only when some tool has details", async () => {
    // Prepare
    const plain = catalogFromJsonl(
      ROWS.map(([name, description]) => ({ name, description, input_schema: {} })),
      { source: "api.jsonl" },
    );
    const detailed = { ...plain, tools: plain.tools.map((t, i) => (ROWS[i]![2] === undefined ? t : { ...t, details: ROWS[i]![2] })) };
    // Act
    const [a, b] = [await buildSearchIndex(plain), await buildSearchIndex(detailed)];
    // Assess: "repositori" is in 5 tools' names or summaries, and in 7 tools' text with the details.
    expect(a.idfDf).toBeUndefined();
    const id = b.terms.indexOf("repositori");
    expect([a.df[a.terms.indexOf("repositori")], b.df[id], b.idfDf![id]]).toEqual([5, 7, 5]);
  });
});
