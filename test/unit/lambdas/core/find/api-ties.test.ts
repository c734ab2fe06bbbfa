// Issue 27, point 5, session 18: the rerank's ties in an API's catalog. A which/what question names what it wants
// back ("which PRs contain commit 9f8e7d6?" wants pull requests), and an operation's name says what it answers with
// ("list pull requests associated with a commit" against "list commits on a pull request"); an operation's verb is
// what it does, and the request may say it in its own words ("ask bob to review PR 88" → request-reviewers). And a
// name or path the request carries ("octo-org/website") is nobody's organisation.
import { describe, expect, it } from "vitest";
import type { QueryParams } from "../../../../../registry/contract/find-tuning.js";
import { apiFinder } from "./catalog.js";

// GitHub's own operations and summaries.
const PULLS = [
  ["pulls.list-commits", "List commits on a pull request."],
  ["repos.list-pull-requests-associated-with-commit", "List pull requests associated with a commit."],
  ["pulls.merge-async", "Merge a pull request asynchronously, in the background."],
  ["pulls.create", "Create a pull request."],
  ["pulls.get", "Get a pull request."],
  ["pulls.list", "List pull requests."],
  ["repos.list-commits", "List commits of a repository."],
  ["repos.get-commit", "Get a commit."],
  ["repos.list-for-authenticated-user", "List repositories that the authenticated user has explicit permission to access."],
  ["repos.list-for-org", "List the repositories of an organization."],
  ["orgs.list-for-authenticated-user", "List organizations for the authenticated user."],
  ["actions.create-or-update-org-secret", "Create or update an organization secret for GitHub Actions."],
  ["actions.create-or-update-repo-secret", "Create or update a repository secret for GitHub Actions."],
  ["actions.create-or-update-environment-secret", "Create or update an environment secret for GitHub Actions."],
];
const finderOf = (query?: Partial<QueryParams>) => apiFinder(PULLS, query);
// The same catalog with review operations of GitHub's pulls area (request-reviewers says less than GitHub's text).
const REVIEWS = [
  ...PULLS,
  ["pulls.create-review", "Create a review for a pull request."],
  ["pulls.request-reviewers", "Request reviewers."],
  ["pulls.get-review", "Get a review for a pull request."],
];
const names = (r: { tools: { name: string }[] }) => r.tools.map((t) => t.name.replace(/^imported\./, ""));

describe("the rerank's question tie", () => {
  const query = "Which PRs contain commit 9f8e7d6?";

  it("puts the operation whose name answers with what the question asks for first, and says so", async () => {
    // Prepare
    const [tied, off] = [await finderOf(), await finderOf({ questionTie: 0 })];
    // Act
    const [r, before] = [
      await tied.find({ query, min_score: 0, schemas: false, explain: true }),
      await off.find({ query, min_score: 0, schemas: false, explain: true }),
    ];
    // Assess: without the tie a tool about another thing leads; with it the two swap their rerank scores.
    expect(names(before)[0]).not.toBe("repos.list-pull-requests-associated-with-commit");
    expect(names(r)[0]).toBe("repos.list-pull-requests-associated-with-commit");
    const reranked = (t: (typeof r.tools)[number]) => t.stages!.find((s) => s.stage === "rerank")!.score;
    expect(reranked(r.tools[0]!)).toBe(reranked(before.tools[0]!));
    expect(r.tools[0]!.rules).toContainEqual(
      expect.objectContaining({ stage: "rerank", rule: "question-tie", detail: expect.stringContaining("what the question asks for") }),
    );
    expect(r.tools[1]!.rules).toContainEqual(expect.objectContaining({ stage: "rerank", rule: "question-tie" }));
  });

  it("reads the question inside an imperative too, and leaves a top whose name answers with the asked thing", async () => {
    // Prepare
    const [tied, off] = [await finderOf(), await finderOf({ questionTie: 0 })];
    // Act
    const [shown, kept, keptOff] = [
      await tied.find({ query: "show which PRs contain commit 9f8e7d6", min_score: 0, schemas: false }),
      await tied.find({ query: "which commits were pushed lately?", min_score: 0, schemas: false }),
      await off.find({ query: "which commits were pushed lately?", min_score: 0, schemas: false }),
    ];
    // Assess: a near tool that also names commits (pulls.list-commits, within 2%) does not displace a top that does.
    expect(names(shown)[0]).toBe("repos.list-pull-requests-associated-with-commit");
    expect(names(keptOff).slice(0, 2)).toEqual(["repos.list-commits", "pulls.list-commits"]);
    expect(names(kept)).toEqual(names(keptOff));
  });
});

describe("the rerank's verb tie", () => {
  it("puts the operation whose verb the request says first, when the top's verb is unsaid, and says so", async () => {
    // Prepare
    const query = "ask bob to review PR 88";
    const [tied, off] = [await apiFinder(REVIEWS), await apiFinder(REVIEWS, { verbTie: 0 })];
    // Act
    const [r, before] = [
      await tied.find({ query, min_score: 0, schemas: false, explain: true }),
      await off.find({ query, min_score: 0, schemas: false, explain: true }),
    ];
    // Assess: "ask" reaches "request" (a WordNet synonym); nothing the request says is create-review's "create".
    expect(names(before)[0]).toBe("pulls.create-review");
    expect(names(r)[0]).toBe("pulls.request-reviewers");
    expect(r.tools[0]!.rules).toContainEqual(
      expect.objectContaining({ stage: "rerank", rule: "verb-tie", detail: expect.stringContaining("says this tool's verb") }),
    );
  });

  it("leaves a top whose verb the request says, even in other words", async () => {
    // Prepare: "produce" reaches create-review's "create"; "requested" meets request-reviewers' verb, within 5%.
    const query = "produce a review for PR 88, requested";
    const [tied, off] = [await apiFinder(REVIEWS), await apiFinder(REVIEWS, { verbTie: 0 })];
    // Act
    const [r, before] = [await tied.find({ query, min_score: 0, schemas: false }), await off.find({ query, min_score: 0, schemas: false })];
    // Assess
    expect(names(before).slice(0, 2)).toEqual(["pulls.create-review", "pulls.request-reviewers"]);
    expect(names(r)).toEqual(names(before));
  });
});

describe("a name or path in the request", () => {
  it("says no scope: octo-org/website is a repository's name, not an organisation's things", async () => {
    // Prepare
    const finder = await finderOf();
    const query = "store our NPM_TOKEN as an encrypted Actions secret on octo-org/website";
    // Act
    const [r, named] = [
      await finder.find({ query, min_score: 0, schemas: false, explain: true }),
      await finder.find({ query: "store our NPM_TOKEN as an encrypted Actions secret on the octo org", min_score: 0, schemas: false }),
    ];
    // Assess: the organisation's secret leads only when the request says organisation outside a name.
    expect(names(named)[0]).toBe("actions.create-or-update-org-secret");
    expect(names(r)[0]).not.toBe("actions.create-or-update-org-secret");
    const words = r.tools.flatMap((t) => (t.explain ?? []).map((w) => w.word));
    expect(words).toContain("secret");
    expect(words).not.toContain("org");
  });
});
