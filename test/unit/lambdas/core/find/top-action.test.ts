// Issue 27: near-miss requests on a catalog imported from a big REST API. A request that asks for an action
// the catalog's best matches do not do ("add this repo to my star list": no operation adds to a star list;
// the best match lists starred repositories) got that read as a confident match. The judge's `top-action`
// rule answers none when the top tool's action conflicts with the request's and no tool just behind it does
// the asked action; when one does, the ranking erred and the verdict holds back.
import { describe, expect, it } from "vitest";
import { createFinder } from "../../../../../lambdas/core/find/index.js";
import { indexActionTable } from "../../../../../build/actions.js";
import { toolActionOf } from "../../../../../lambdas/core/find/actions.js";
import { exampleArtifact } from "../../../../helpers/example-registry.js";
import { apiFinder, expectRuleTurnsNone } from "./catalog.js";

const ROWS = [
  ["activity.list-repos-starred-by-user", "Lists repositories a user has starred."],
  ["activity.list-repos-starred-by-authenticated-user", "Lists repositories the authenticated user has starred."],
  ["activity.list-stargazers-for-repo", "Lists the people that have starred the repository."],
  ["repos.get", "Get a repository by its owner and name."],
  ["repos.list-for-org", "List the repositories of an organization."],
  ["repos.list-for-authenticated-user", "List the repositories of the authenticated user."],
  ["activity.star-repo-for-authenticated-user", "Star a repository for the authenticated user."],
  ["issues.list-labels-for-repo", "Lists all labels for a repository."],
  ["orgs.list-members", "List the members of an organization."],
  ["users.get-authenticated", "Get the authenticated user."],
];
/** The same operations and two that add: labels to an issue, a collaborator to a repository. */
const WITH_ADD = [...ROWS, ["issues.add-labels", "Adds labels to an issue."], ["repos.add-collaborator", "Add a collaborator to a repository."]];
/** The same operations and two that add what the request does not name: labels to an issue, social accounts to the caller's profile. */
const WITH_OTHER_ADD = [
  ...ROWS,
  ["issues.add-labels", "Adds labels to an issue."],
  ["users.add-social-account-for-authenticated-user", "Add social accounts for the authenticated user."],
];
// Longer than an API catalog's `apiActionMaxWords`: the rerank leaves its action alone, so the judge is what reads it.
const STAR_LIST = "add the repository octo/app to my 'weekend reading' list of starred repositories, so that I find it again later";

describe("the judge's top-action rule", () => {
  it("answers none when the top tool does another action than the request asks and no tool just behind does it, and says why", async () => {
    // Without the rule the list of starred repositories was a match for a request to add to a star list.
    await expectRuleTurnsNone(ROWS, STAR_LIST, { actionVerdict: 1 }, "imported.activity.list-stargazers-for-repo", {
      rule: "top-action",
      effect: "×0.60",
      detail:
        "the request asks to add (create); the top tool does read, and none of the tools just behind it that meets a specific word of the request besides its verb does create: the catalog's best matches do not do what the request asks",
    });
  });

  it("holds back when a tool just behind the top does the asked action, or the top does it", async () => {
    const f = await apiFinder(WITH_ADD);
    for (const query of [
      // The top lists stargazers; a repository's collaborators, just behind, are added: the catalog adds to repositories.
      STAR_LIST,
      "add to the labels of the repository octo/app the one called needs triage",
      "list the repositories I have starred, including the ones archived last year",
    ]) {
      const r = await f.find({ query, schemas: false, explain: true });
      expect({ query, verdict: r.verdict }).toEqual({ query, verdict: "match" });
      expect(r.verdict_reasons!.some((x) => x.rule === "top-action")).toBe(false);
    }
  });

  it("does not hold back for a tool behind that meets the request in its verb alone", async () => {
    // Adding labels or social accounts shares only "add" with the request: no alternative the ranking missed.
    const r = await (await apiFinder(WITH_OTHER_ADD)).find({ query: STAR_LIST, schemas: false, explain: true });
    expect(r.verdict).toBe("none");
    expect(r.verdict_reasons).toContainEqual(expect.objectContaining({ stage: "judge", rule: "top-action", effect: "×0.60" }));
  });

  it("judges a tool its author wrote search hints for too: the example registry's action-item extractor is no way to schedule a meeting", async () => {
    // Prepare: the example registry, whose tools mostly have examples (a catalog judged by its authors' words).
    const artifact = await exampleArtifact();
    const [judged, off] = [createFinder(artifact), createFinder(artifact, { query: { actionVerdict: 1 } })];
    const query = "schedule a meeting with the design team on Thursday";
    // Act
    const [r, before] = [await judged.find({ query, schemas: false, explain: true }), await off.find({ query, schemas: false })];
    // Assess: the extractor "creates" nothing; no tool just behind creates (the registry has no calendar).
    expect({ verdict: before.verdict, top: before.tools[0]?.name }).toEqual({ verdict: "match", top: "writing.extract_action_items" });
    expect(r.verdict).toBe("none");
    expect(r.verdict_reasons).toContainEqual(expect.objectContaining({ stage: "judge", rule: "top-action", effect: "×0.60" }));
  }, 60_000);

  it("reads counting as a read, killing as a delete and pushing as a send (general seed verbs): no tool of the example registry kills a process or pushes commits", async () => {
    const artifact = await exampleArtifact();
    const [judged, off] = [createFinder(artifact), createFinder(artifact, { query: { actionVerdict: 1 } })];
    for (const [query, top, asked] of [
      ["kill the process hogging the cpu", "system.cpu_count", "kill (delete)"],
      ["push my changes to the remote", "git.remotes", "push (send)"],
    ] as const) {
      const [r, before] = [await judged.find({ query, schemas: false, explain: true }), await off.find({ query, schemas: false })];
      expect({ verdict: before.verdict, top: before.tools[0]?.name }).toEqual({ verdict: "match", top });
      expect(r.verdict).toBe("none");
      expect(r.verdict_reasons).toContainEqual(expect.objectContaining({ stage: "judge", rule: "top-action", detail: expect.stringContaining(asked) }));
    }
  }, 60_000);

  it("does not count a tool behind that meets the request besides its verb in everyday words only", async () => {
    const artifact = await exampleArtifact();
    const [judged, off] = [createFinder(artifact), createFinder(artifact, { query: { actionVerdict: 1 } })];
    // files.read_tail reads (its name says so); notes.delete, just behind, deletes but meets only "delete" and "old".
    const query = "delete the old log files in /var/log";
    const [r, before] = [await judged.find({ query, schemas: false, explain: true }), await off.find({ query, schemas: false })];
    expect({ verdict: before.verdict, top: before.tools[0]?.name }).toEqual({ verdict: "match", top: "files.read_tail" });
    expect(r.verdict).toBe("none");
    expect(r.verdict_reasons).toContainEqual(
      expect.objectContaining({ rule: "top-action", detail: expect.stringContaining("asks to delete (delete); the top tool does read") }),
    );
  }, 60_000);

  it("takes a tool declared read-only whose words name no action to conflict with a delete or an update only", async () => {
    const artifact = await exampleArtifact();
    const revParse = artifact.tools.find((t) => t.name === "git.rev_parse")!;
    // Its name and description name no action; its author declared it read-only.
    expect({ action: toolActionOf(revParse, indexActionTable()), readOnly: revParse.governance.read_only }).toEqual({ action: undefined, readOnly: true });
    const [judged, off] = [createFinder(artifact), createFinder(artifact, { query: { actionVerdict: 1 } })];
    const query = "delete the git branch feature-x";
    const [r, before] = [await judged.find({ query, schemas: false, explain: true }), await off.find({ query, schemas: false })];
    expect({ verdict: before.verdict, top: before.tools[0]?.name }).toEqual({ verdict: "match", top: "git.rev_parse" });
    expect(r.verdict).toBe("none");
    expect(r.verdict_reasons).toContainEqual(
      expect.objectContaining({
        rule: "top-action",
        detail: expect.stringContaining("asks to delete (delete); the top tool is declared read-only (its words name no action)"),
      }),
    );
    // A pure function declared read-only may well create what it computes.
    const slug = await judged.find({ query: 'generate a slug for "My First Post"', schemas: false, explain: true });
    expect({ verdict: slug.verdict, top: slug.tools[0]?.name }).toEqual({ verdict: "match", top: "text.slugify" });
    expect(slug.verdict_reasons!.some((x) => x.rule === "top-action")).toBe(false);
  }, 60_000);
});
