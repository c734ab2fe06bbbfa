// Issue 27, point 5: on a catalog imported from a big API, one incidental word in a long description
// gave a confident wrong match. The judge's description-body rule lowers a request whose specific words
// meet the top tool only after the first sentence of its long description.
import { describe, expect, it } from "vitest";
import { splitDescription } from "../../../../../lambdas/core/find/judge.js";
import { apiFinder } from "./catalog.js";

const BODY =
  " Webhooks deliver events such as pushes, issues, pull requests, releases and deployments to the URL you choose; each delivery is signed" +
  " with the secret you give, retried on failure, and kept in the delivery log for thirty days so you can inspect payloads.";
const ROWS = [
  ["repos.create-webhook", `Create a webhook for a repository.${BODY}`],
  ["repos.list-webhooks", `List the webhooks of a repository.${BODY}`],
  [
    "repos.get",
    "Get a repository by its owner and name. The answer holds its description, default branch, visibility, topics and the counts of its stars, forks and watchers.",
  ],
  [
    "issues.create",
    "Create an issue in a repository. An issue has a title, a body, labels, assignees and a milestone; the caller needs push access to set labels or assignees.",
  ],
  [
    "issues.list",
    "List the issues of a repository, newest first. Filter by state, labels, assignee or milestone; pull requests are issues too and are listed unless you filter them out.",
  ],
  ["users.get-authenticated", "Get the authenticated user. The answer holds the caller's login, name, email, company, location and plan."],
  ["releases.create", "Create a release of a repository from a tag, with its notes, marked as a draft or a prerelease if you want."],
  ["gists.create", "Create a gist with one or more files. A gist is public or secret; its files each have a name and contents."],
];

// The top-object rule (a payment is not what a webhook operation acts on) answers these requests too: off, so this tests the body rule alone.
const finderOf = (bodyOneWord?: number) => apiFinder(ROWS, { objectVerdict: 1, ...(bodyOneWord === undefined ? {} : { bodyOneWord }) });

describe("the description-body rule", () => {
  it("splits a description after its first sentence", () => {
    expect(splitDescription("Create a webhook. It delivers events.")).toEqual(["Create a webhook", "It delivers events."]);
    expect(splitDescription("Create a webhook")).toEqual(["Create a webhook", ""]);
  });

  it("answers none when a request's specific words meet the top tool only in a long description's body, and says so", async () => {
    // Prepare
    const [judged, off] = [await finderOf(), await finderOf(1)];
    for (const query of ["retry a failed payment", "show the deployments"]) {
      // Act
      const [r, before] = [await judged.find({ query, schemas: false, explain: true }), await off.find({ query, schemas: false })];
      // Assess: without the rule a webhook operation was a confident match.
      expect(before.verdict).toBe("match");
      expect(before.tools[0]!.name).toMatch(/webhook/);
      expect(r.verdict).toBe("none");
      expect(r.verdict_reasons).toContainEqual({
        stage: "judge",
        rule: "description-body",
        effect: "×0.80",
        detail: expect.stringContaining("long description"),
      });
    }
  });

  it("leaves a request that meets the tool's name or first sentence alone", async () => {
    const f = await finderOf();
    for (const [query, tool] of [
      ["create a webhook", "repos.create-webhook"],
      ["list the webhooks of my repo", "repos.list-webhooks"],
      ["create a release from a tag", "releases.create"],
    ] as const) {
      const r = await f.find({ query, schemas: false, explain: true });
      expect(r.verdict).toBe("match");
      expect(r.tools[0]!.name).toBe(`imported.${tool}`);
      expect(r.verdict_reasons!.some((x) => x.rule === "description-body")).toBe(false);
    }
  });
});
