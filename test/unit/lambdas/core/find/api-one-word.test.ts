// Issue 27: in a catalog imported from a REST API, an everyday request that shares one word with an
// operation ("delivery" with a webhook's deliveries) got that operation as a confident match. The one-word
// rule, until then for tools with search hints only, now also judges a tool without hints in a catalog
// whose tool names say whose things they are about (an API's operations).
import { describe, expect, it } from "vitest";
import { apiFinder as finderOf, expectRuleTurnsNone } from "./catalog.js";

const API = [
  ["repos.list-webhook-deliveries", "List the deliveries of a repository webhook."],
  ["repos.create-webhook", "Create a webhook for a repository."],
  ["repos.redeliver-webhook-delivery", "Redeliver a delivery of a repository webhook."],
  ["repos.list-for-authenticated-user", "List the repositories of the authenticated user."],
  ["repos.list-for-org", "List the repositories of an organization."],
  ["orgs.list-members", "List the members of an organization."],
  ["users.list-emails-for-authenticated-user", "List the email addresses of the authenticated user."],
  ["issues.create", "Create an issue in a repository."],
  ["issues.lock", "Lock an issue's conversation."],
];
// The same descriptions under names that say no owner (no "repos", "orgs", "authenticated user"): a catalog of tools.
const PLAIN = API.map(([, description], i) => [
  `tools.${["hook-deliveries", "hook-create", "hook-redeliver", "mine", "group", "people", "emails", "new-issue", "lock-issue"][i]}`,
  description!,
]);

describe("the one-word rule on an API's operations without search hints", () => {
  const query = "track the sushi delivery";

  it("answers none when the top operation meets one word and another is foreign to the catalog, and says why", async () => {
    // Without the rule the webhook's deliveries were a match.
    await expectRuleTurnsNone(API, query, { hintOneHit: 1 }, "imported.repos.list-webhook-deliveries", {
      rule: "one-word",
      effect: "×0.80",
      detail: expect.stringMatching(
        /another of its words \("sushi"\) is foreign .*no search hints, but the catalog's tool names say whose things they are about/,
      ),
    });
  });

  it("leaves a catalog whose names say no owner to the fit model alone", async () => {
    const r = await (await finderOf(PLAIN)).find({ query, schemas: false, explain: true });
    expect(r.verdict).toBe("match");
    expect(r.verdict_reasons!.some((x) => x.rule === "one-word")).toBe(false);
  });

  it("keeps a request that meets the operation in more than one word", async () => {
    const f = await finderOf(API);
    for (const [q, tool] of [
      ["list the deliveries of the ci webhook", "repos.list-webhook-deliveries"],
      ["lock the issue", "issues.lock"],
    ] as const) {
      const r = await f.find({ query: q, schemas: false, explain: true });
      expect(r.verdict).toBe("match");
      expect(r.tools[0]!.name).toBe(`imported.${tool}`);
    }
  });
});

describe("the one-word rule counts a word met only in a long description's body as incidental", () => {
  const body =
    "The fork is created in the background; it can take a few minutes before its git objects are accessible, and what goes into it is every branch of the parent repository unless you ask for the default branch only. Contact support if it takes longer than five hours.";
  const rows = (summary: string) => [...API, ["repos.create-fork", `${summary} ${body}`]];
  const query = "which fork goes with the sushi";
  // Every tool shown (min_score 0): a question asks to read, and the rules that weigh that (a fork is made, not read) are not this test's.

  it("judges the request by the one-word rule when the second matched word is only in the body, naming the foreign word", async () => {
    const r = await (await finderOf(rows("Create a fork of a repository."))).find({ query, min_score: 0, schemas: false, explain: true });
    expect(r.tools[0]!.name).toBe("imported.repos.create-fork");
    expect(r.verdict_reasons!.find((x) => x.rule === "one-word")).toMatchObject({ effect: "×0.80", detail: expect.stringMatching(/"sushi"/) });
  });

  it("does not when that word is in the description's first sentence too", async () => {
    const r = await (await finderOf(rows("Create a fork of a repository: where a copy goes."))).find({ query, min_score: 0, schemas: false, explain: true });
    expect(r.tools[0]!.name).toBe("imported.repos.create-fork");
    expect(r.verdict_reasons!.some((x) => x.rule === "one-word")).toBe(false);
  });
});
