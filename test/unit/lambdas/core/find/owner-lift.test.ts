// Issue 27, point 5: on a catalog imported from a big REST API, requests about the caller's own things
// ("show all my repos") met their tool (repos.list-for-authenticated-user) first but under min_score: the
// tool's name says the owner as "authenticated user", a word the request never uses. The owner lift
// counts the owner the request names as one more word such a tool meets, when the best match is that
// owner's already.
import { describe, expect, it } from "vitest";
import type { QueryParams } from "../../../../../registry/contract/find-tuning.js";
import { apiFinder } from "./catalog.js";

const SCOPED = [
  ["repos.list-for-authenticated-user", "List repositories that the authenticated user has explicit permission to access."],
  ["repos.list-for-org", "List the repositories of an organization."],
  ["repos.get", "Get a repository by its owner and name."],
  ["repos.delete", "Delete a repository."],
  ["orgs.list-for-authenticated-user", "List organizations for the authenticated user."],
  ["orgs.get", "Get an organization."],
  ["packages.list-packages-for-organization", "List packages in an organization."],
  ["packages.list-packages-for-authenticated-user", "List packages owned by the authenticated user."],
  ["issues.create", "Create an issue."],
  ["issues.lock", "Lock an issue's conversation."],
  ["pulls.merge", "Merge a pull request."],
  ["users.get-authenticated", "Get the authenticated user."],
  ["teams.list-discussions", "List the discussions of a team."],
  ["users.list-blocked-by-authenticated-user", "List the users the authenticated user has blocked from discussions."],
];

const finderOf = (rows: string[][] = SCOPED, query?: Partial<QueryParams>) => apiFinder(rows, query);

describe("the rerank's owner lift", () => {
  it("lifts the caller's own tools when the best match is one, and says so in explain", async () => {
    // Prepare
    const [lifted, off] = [await finderOf(), await finderOf(SCOPED, { ownerLift: 0 })];
    const query = "show all my repos, private ones included";
    // Act
    const [r, before] = [await lifted.find({ query, min_score: 0, schemas: false, explain: true }), await off.find({ query, min_score: 0, schemas: false })];
    // Assess
    const top = r.tools[0]!;
    expect(top.name).toBe("imported.repos.list-for-authenticated-user");
    expect(before.tools[0]!.name).toBe(top.name);
    expect(top.score).toBeGreaterThan(before.tools[0]!.score);
    expect(top.rules).toContainEqual({
      stage: "rerank",
      rule: "owner-lift",
      effect: expect.stringMatching(/^\+0\.\d\d$/),
      detail: "the request is about the caller's own things and this tool's name says so: the owner counts as a word it meets",
    });
    const org = r.tools.find((t) => t.name === "imported.repos.list-for-org")!;
    expect((org.rules ?? []).some((x) => x.rule === "owner-lift")).toBe(false);
  });

  it("moves an own tool 0.1 of the way to 1", async () => {
    const query = "show all my repos, private ones included";
    const score = async (f: Awaited<ReturnType<typeof finderOf>>) => (await f.find({ query, min_score: 0, schemas: false })).tools[0]!.score;
    const [on, off] = [await score(await finderOf()), await score(await finderOf(SCOPED, { ownerLift: 0 }))];
    expect(on).toBeCloseTo(off + 0.1 * (1 - off), 3);
  });

  it("leaves a request whose best match is another owner's, or that names no owner, alone", async () => {
    const f = await finderOf();
    for (const query of ["which discussions are mine", "lock the issue", "merge the pull request"]) {
      const r = await f.find({ query, min_score: 0, schemas: false, explain: true });
      if (query === "which discussions are mine") {
        // The caller's own tool is a candidate, but behind a team's: the lift does not swap a match.
        expect(r.tools[0]!.name).toBe("imported.teams.list-discussions");
        expect(r.tools.map((t) => t.name)).toContain("imported.users.list-blocked-by-authenticated-user");
      }
      expect(
        r.tools.some((t) => (t.rules ?? []).some((x) => x.rule === "owner-lift")),
        query,
      ).toBe(false);
    }
  });

  it("does nothing in a catalog whose names do not say whose things they are about", async () => {
    const f = await finderOf([
      ["chat.post-message", "Post a message to a channel."],
      ["chat.list-channels", "List the channels of the workspace."],
      ["chat.list-my-channels", "List the channels the authenticated user is in."],
      ["git.log", "Show the commit log."],
      ["git.status", "Show the working tree status."],
      ["billing.charge", "Charge a customer's card."],
      ["files.upload", "Upload a file."],
      ["files.delete", "Delete a file."],
      ["files.list", "List files."],
      ["files.move", "Move a file."],
      ["files.copy", "Copy a file."],
    ]);
    const r = await f.find({ query: "show my channels", min_score: 0, schemas: false, explain: true });
    expect(r.tools[0]!.name).toBe("imported.chat.list-my-channels");
    expect(r.tools.some((t) => (t.rules ?? []).some((x) => x.rule === "owner-lift"))).toBe(false);
  });
});

describe("the rerank's scope tie (session 17)", () => {
  // Two operations the request's words meet alike; only whose codespace tells them apart.
  const STOP = [
    ...SCOPED,
    ["codespaces.stop-in-organization", "Stop a codespace for an organization user."],
    ["codespaces.stop-for-authenticated-user", "Stop a codespace for the authenticated user."],
  ];
  const query = "stop my codespace fluffy-waffle-7r4";

  it("puts the tool about the request's things first when the words tie, whatever the request's verb, and says so", async () => {
    // Prepare: "stop" names no action class, so the rerank's scope factor does not run on this request.
    const [tied, off] = [await finderOf(STOP), await finderOf(STOP, { scopeTie: 0 })];
    // Act
    const [r, before] = [
      await tied.find({ query, min_score: 0, schemas: false, explain: true }),
      await off.find({ query, min_score: 0, schemas: false, explain: true }),
    ];
    // Assess
    expect(before.tools.slice(0, 2).map((t) => t.name)).toEqual([
      "imported.codespaces.stop-in-organization",
      "imported.codespaces.stop-for-authenticated-user",
    ]);
    expect(r.tools.slice(0, 2).map((t) => t.name)).toEqual(["imported.codespaces.stop-for-authenticated-user", "imported.codespaces.stop-in-organization"]);
    // The two swap their rerank scores (the judge then no longer lowers the top for being about another owner's things).
    const reranked = (t: (typeof r.tools)[number]) => t.stages!.find((s) => s.stage === "rerank")!.score;
    expect(r.tools.slice(0, 2).map(reranked)).toEqual(before.tools.slice(0, 2).map(reranked));
    expect(r.tools[0]!.rules).toContainEqual(expect.objectContaining({ stage: "rerank", rule: "scope-tie", detail: expect.stringContaining("swap places") }));
  });
});
