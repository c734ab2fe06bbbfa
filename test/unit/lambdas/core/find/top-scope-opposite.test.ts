// Issue 27, point 5: near-miss requests on a catalog imported from a big REST API got a confident wrong
// tool. Two judge rules answer none for them: `top-scope` (the top tool is about other people's things
// than the request names while a tool just behind is about the request's) and `opposite` (the request
// undoes what the top tool's name says: "unread" against mark-notifications-as-read).
import { describe, expect, it } from "vitest";
import type { QueryParams } from "../../../../../registry/contract/find-tuning.js";
import { apiFinder, expectRuleTurnsNone } from "./catalog.js";

const ROWS = [
  ["orgs.list-members", "List the members of an organization, filtered by their two-factor status."],
  ["orgs.remove-member", "Remove a member from an organization."],
  ["users.list-emails-for-authenticated-user", "List the email addresses of the authenticated user's account."],
  ["users.add-email-for-authenticated-user", "Add an email address to the authenticated user's account."],
  ["activity.mark-notifications-as-read", "Mark every notification of the authenticated user as read."],
  ["activity.list-notifications-for-authenticated-user", "List the notifications of the authenticated user."],
  ["issues.lock", "Lock an issue's conversation so that only collaborators can comment."],
  ["issues.unlock", "Unlock an issue's conversation."],
  ["repos.get", "Get a repository by its owner and name."],
  ["repos.list-for-org", "List the repositories of an organization."],
  ["apps.check-token", "Check that an OAuth app's authentication token is valid for an account."],
  ["orgs.list-accounts", "List the accounts of an organization's billing plan."],
  ["repos.get-readme", "Get the preferred README of a repository."],
];

const finderOf = (query?: Partial<QueryParams>) => apiFinder(ROWS, query);

describe("the judge's top-scope rule", () => {
  it("answers none when the top tool is an organisation's while the request is about the caller's own, and says why", async () => {
    // Without the rule the organisation's member list was a match.
    await expectRuleTurnsNone(ROWS, "turn on two-factor authentication for my account", { scopeVerdict: 1 }, "imported.orgs.list-members", {
      rule: "top-scope",
      effect: "×0.50",
      detail: expect.stringMatching(
        /the request is about the caller's own things; the top tool is about an organisation's, while imported\.users\.\S+, just behind it/,
      ),
    });
  });

  it("leaves a request whose scope the top tool serves, or that names none, alone", async () => {
    const f = await finderOf();
    for (const [query, tool] of [
      ["list the members of the acme organization", "orgs.list-members"],
      ["add an email address to my account", "users.add-email-for-authenticated-user"],
      ["get the repository octo/app", "repos.get"],
    ] as const) {
      const r = await f.find({ query, schemas: false, explain: true });
      expect(r.tools[0]!.name).toBe(`imported.${tool}`);
      expect(r.verdict_reasons!.some((x) => x.rule === "top-scope")).toBe(false);
    }
  });

  it('reads the "me" right after the verb as whom the answer is for, not whose things the request is about', async () => {
    // "show me the README of rails/rails" is a repository's README; the caller's own notifications were just behind.
    const r = await (await finderOf()).find({ query: "show me the README of rails/rails", schemas: false, explain: true });
    expect({ verdict: r.verdict, top: r.tools[0]?.name }).toEqual({ verdict: "match", top: "imported.repos.get-readme" });
    expect(r.verdict_reasons!.some((x) => x.rule === "top-scope")).toBe(false);
    // After a preposition it still names the caller: two-factor "for me" is the caller's own account.
    const mine = await (await finderOf()).find({ query: "turn on two-factor authentication for me", schemas: false, explain: true });
    expect(mine.verdict_reasons!.some((x) => x.rule === "top-scope")).toBe(true);
  });
});

describe("the judge's opposite rule", () => {
  it("answers none when the request undoes the top tool's name word, and says why", async () => {
    await expectRuleTurnsNone(ROWS, "mark that notification as unread again", { oppositeVerdict: 1 }, "imported.activity.mark-notifications-as-read", {
      rule: "opposite",
      effect: "×0.40",
      detail: 'the request says "unread", the opposite of "read" in the top tool\'s name: the tool does what the request asks to undo',
    });
  });

  it("leaves a tool named by the request's own word alone, and a word that only starts like a prefix", async () => {
    const f = await finderOf();
    for (const [query, tool] of [
      ["unlock issue 5", "issues.unlock"],
      ["mark my notifications as read", "activity.mark-notifications-as-read"],
    ] as const) {
      const r = await f.find({ query, schemas: false, explain: true });
      expect(r.verdict).toBe("match");
      expect(r.tools[0]!.name).toBe(`imported.${tool}`);
      expect(r.verdict_reasons!.some((x) => x.rule === "opposite")).toBe(false);
    }
  });

  it("leaves a clause that removes the undone state alone: clearing unread notifications is marking them read", async () => {
    // Without the notification list, marking them read is the catalog's only notification operation.
    const f = await apiFinder(ROWS.filter(([name]) => name !== "activity.list-notifications-for-authenticated-user"));
    for (const query of ["I have read them all, just clear out my unread notifications", "erase the unread state of every notification"]) {
      const r = await f.find({ query, schemas: false, explain: true, min_score: 0 });
      expect(r.tools[0]!.name).toBe("imported.activity.mark-notifications-as-read");
      expect({ query, opposite: r.verdict_reasons!.some((x) => x.rule === "opposite") }).toEqual({ query, opposite: false });
    }
    // The same words in another clause than the removal still undo the tool's: "mark … as unread, then delete …".
    const r = await f.find({ query: "mark that notification as unread again, and delete the old ones later", schemas: false, explain: true, min_score: 0 });
    expect(r.verdict_reasons!.some((x) => x.rule === "opposite")).toBe(true);
  });
});

// Found in review: a dis- word is most often a word of its own, and "my" is everyday phrasing in a catalog
// with no tool of the caller's own. Neither may turn a right answer into none.
describe("words that only look like an opposite or a scope", () => {
  const OTHER = [
    ["git.apply-patch", "Apply a patch file to the working tree."],
    ["git.log", "Show the commit log."],
    ["billing.charge", "Charge a customer's card."],
    ["chat.post-message", "Post a message to a channel or a person."],
    ["chat.list-channels", "List the channels of the workspace."],
    ["orgs.list-members", "List the members of an organization."],
    ["orgs.remove-member", "Remove a member from an organization."],
  ];

  it("keeps the match for a dis- word that is a word of its own, and for 'my' where no tool is the caller's own", async () => {
    const f = await apiFinder(OTHER);
    for (const [query, tool] of [
      ["dispatch the patch to the working tree", "git.apply-patch"],
      ["discharge the customer's card", "billing.charge"],
      ["send a message to my colleague", "chat.post-message"],
      ["show my members", "orgs.list-members"],
    ] as const) {
      const r = await f.find({ query, schemas: false, explain: true });
      expect({ query, verdict: r.verdict, top: r.tools[0]?.name }).toEqual({ query, verdict: "match", top: `imported.${tool}` });
      expect(r.verdict_reasons?.some((x) => x.rule === "opposite" || x.rule === "top-scope")).toBe(false);
    }
  });
});
