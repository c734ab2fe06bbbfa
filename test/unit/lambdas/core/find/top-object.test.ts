// Issue 27: near-miss requests on a catalog imported from a big REST API. A request that names a thing no
// operation acts on ("delete issue 45": the API deletes an issue's comments, never the issue) got the
// nearest operation on another thing as a confident match. The judge's `top-object` rule answers none
// when nothing the request asks for is what the top tool acts on (its name's object) and no tool just
// behind that does the asked action acts on it; when one does, the ranking erred and the verdict holds back.
import { describe, expect, it } from "vitest";
import { apiFinder, expectRuleTurnsNone } from "./catalog.js";

const ROWS = [
  ["issues.delete-comment", "Delete an issue comment. Deletes a comment on an issue of a repository."],
  ["issues.update", "Update an issue. Change the title, body, state or labels of an issue."],
  ["issues.create", "Create an issue in a repository."],
  ["issues.list-for-repo", "List the issues of a repository."],
  ["issues.list-comments", "List the comments on an issue."],
  ["repos.list-for-authenticated-user", "List the repositories of the authenticated user."],
  ["repos.list-for-org", "List the repositories of an organization."],
  ["orgs.list-members", "List the members of an organization."],
  ["git.create-tag", "Create a tag object for a commit."],
  ["users.get-authenticated", "Get the authenticated user."],
];
/** The same operations and one that deletes what the request names (an organisation's issue types). */
const WITH_ISSUE_TYPE = [...ROWS, ["orgs.delete-issue-type", "Delete an issue type of an organization."]];
const DELETE_ISSUE = "remove issue 45 for good";

describe("the judge's top-object rule", () => {
  it("answers none when the top tool acts on another thing than the request names and no tool just behind acts on it, and says why", async () => {
    // Without the rule the deletion of a comment was a match for a request to delete the issue itself.
    await expectRuleTurnsNone(ROWS, DELETE_ISSUE, { objectVerdict: 1 }, "imported.issues.delete-comment", {
      rule: "top-object",
      effect: "×0.60",
      detail:
        'what the request asks for ("issu") is not what the top tool acts on ("comment" in its name), nor what a tool just behind that does the asked action acts on: the best match acts on something else',
    });
  });

  it("holds back when a tool just behind acts on the request's thing, when the top tool does, or when the verb names the tool's object", async () => {
    const f = await apiFinder(WITH_ISSUE_TYPE);
    const plain = await apiFinder(ROWS);
    const cases: [typeof f, string][] = [
      // Just behind the top, an operation deletes an issue type: the catalog deletes things called issues.
      [f, DELETE_ISSUE],
      // The top tool's object is the family's word when its name says only the verb (issues.update).
      [plain, "update issue 45 with a new title"],
      // "tag" is the verb and the object of git.create-tag.
      [plain, "tag the head commit as v1.4.2"],
      // A question is no imperative: nothing is compared.
      [plain, "which comments are on issue 45?"],
    ];
    for (const [finder, query] of cases) {
      const r = await finder.find({ query, schemas: false, explain: true });
      expect({ query, rule: r.verdict_reasons!.some((x) => x.rule === "top-object") }).toEqual({ query, rule: false });
    }
  });
});
