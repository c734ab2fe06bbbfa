import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  actionFactor,
  actionFit,
  actionOf,
  actionWords,
  Fit,
  questionAction,
  requestAction,
  Scope,
  scopeFit,
  scopeOf,
  imperativeVerb,
  ownerWords,
  operationObject,
  toolAction,
  toolActionOf,
  type ActionTable,
} from "../../../../../lambdas/core/find/actions.js";
import { actionTableJson, buildActionTable, readActionTable } from "../../../../../build/actions.js";
import { artifactFromFiles } from "../../../../../lambdas/artifact.js";
import { createFinder } from "../../../../../lambdas/core/find/index.js";
import { emitArtifact } from "../../../../../build/artifact.js";
import { catalogFromJsonl } from "../../../../../build/sources/jsonl.js";
import { apiFinder, smallFinder } from "./catalog.js";
import type { Finder } from "../../../../../lambdas/core/find/types.js";

const FILE = new URL("../../../../../build/data/actions.json", import.meta.url);
// What the build hands the artifact, read as the runtime module's type.
const table: ActionTable = readActionTable();
const request = (text: string) => actionOf(actionWords(text), table);
const tool = (name: string, description = "") => toolAction(actionWords(name), actionWords(description), table);

describe("action classes (issue 27's cases)", () => {
  it("reads the request's action from its verb, whatever the object", () => {
    expect(request("remind me to call mom")).toBe("create");
    expect(request("remind me to water the plants")).toBe("create");
    expect(request("create a reminder to water the plants")).toBe("create");
    expect(request("put eggs on my todo list")).toBe("create");
    expect(request("book a train seat")).toBe("create");
    expect(request("show my todo list")).toBe("read");
    expect(request("cancel my booking")).toBe("delete");
    expect(request("rename the file")).toBe("update");
    expect(request("notify the team")).toBe("send");
    expect(request("the weather in Paris")).toBeUndefined();
  });

  it("reads a tool's action from its name before its description, in any case style", () => {
    expect(tool("todo.add", "Add an item to the list")).toBe("create");
    expect(tool("todo.list", "List the items")).toBe("read");
    expect(tool("create-booking")).toBe("create");
    expect(tool("get-booking", "Get a booking by id")).toBe("read");
    expect(tool("getBooking")).toBe("read");
    expect(tool("DeleteItem")).toBe("delete");
    // No action word in the name: the description's.
    expect(tool("todo.items", "Removes an item from the list")).toBe("delete");
  });

  it("finds an action through inflections and the nouns that name the act", () => {
    expect(request("added eggs")).toBe("create");
    expect(request("dropping the table")).toBe("delete");
    expect(request("a new reservation for two")).toBe("create");
    expect(request("deletion of old rows")).toBe("delete");
  });

  it("compares the request's action with the tool's: same, conflict, or unknown", () => {
    const put = request("put eggs on my todo list");
    expect(actionFit(put, tool("todo.add"))).toBe(Fit.same);
    expect(actionFit(put, tool("todo.list"))).toBe(Fit.conflict);
    const book = request("book a train seat");
    expect(actionFit(book, tool("create-booking"))).toBe(Fit.same);
    expect(actionFit(book, tool("get-booking"))).toBe(Fit.conflict);
    expect(actionFit(request("the weather in Paris"), tool("weather.forecast"))).toBe(Fit.unknown);
    expect(actionFit(book, undefined)).toBe(Fit.unknown);
  });
});

describe("an HTTP operation named after its method and path (session 18: Box's import)", () => {
  const http = (name: string, method: string, description = "") => ({ name, description, backend: { kind: "http", method } });

  it("does what its method does when its name opens with that method", () => {
    expect(toolActionOf(http("box.post_folders", "POST", "Create folder"), table)).toBe("create");
    expect(toolActionOf(http("box.put_files_id", "PUT", "Update file"), table)).toBe("update");
    expect(toolActionOf(http("box.patch_files_id", "PATCH"), table)).toBe("update");
    expect(toolActionOf(http("box.get_files_id", "GET"), table)).toBe("read");
    expect(toolActionOf(http("box.delete_files_id_trash", "DELETE"), table)).toBe("delete");
  });

  it("keeps the verb its name says otherwise, and a tool of another kind reads its name as before", () => {
    // "put" alone is a verb of making ("put eggs on my todo list"); a POST named with a verb keeps that verb.
    expect(toolActionOf({ name: "todo.put", description: "Put an item on the list" }, table)).toBe("create");
    expect(toolActionOf({ name: "todo.put", description: "", backend: { kind: "exec" } }, table)).toBe("create");
    expect(toolActionOf(http("github.issues.delete-comment", "DELETE"), table)).toBe("delete");
    expect(toolActionOf(http("github.apps.revoke-installation-access-token", "DELETE"), table)).toBe("delete");
    expect(toolActionOf(http("slack.chat_postMessage", "POST"), table)).toBe(toolAction(["chat", "post", "message"], [], table));
    expect(toolActionOf(http("box.post_folders", "PUT"), table)).toBe(toolAction(["post", "folders"], [], table));
  });
});

describe("a request's action, read from its first word", () => {
  const first = (text: string) => requestAction(actionWords(text), table);

  it("skips politeness and the agent's phrasing, and reads the verb that opens the request", () => {
    expect(first("remind me to call mom")).toBe("create");
    expect(first("put eggs on my todo list")).toBe("create");
    expect(first("please book a train seat")).toBe("create");
    expect(first("can you delete the old branch")).toBe("delete");
    expect(first("I need to update my address")).toBe("update");
  });

  it("compares nothing for a question or a request that opens with no action word", () => {
    // actionOf reads the nouns "view" and "changes" as actions; the first word is what the request asks.
    expect(actionOf(actionWords("bump the page view counter by one"), table)).toBe("read");
    expect(first("bump the page view counter by one")).toBeUndefined();
    expect(first("do i have any uncommitted changes?")).toBeUndefined();
    expect(first("what files are in my folder?")).toBeUndefined();
    expect(first("top stories on hacker news")).toBeUndefined();
  });

  it("reads a first word in -s as a plural noun, not a verb: an imperative's verb is its base form", () => {
    // "issues" would be "issue" (send) by its stem: the request names things, it asks no action.
    expect(first("issues assigned to me across every repo")).toBeUndefined();
    expect(first("issue a refund for order 7")).toBe("send");
  });

  it("skips an article: it is never the verb, and the noun it opens may name the act", () => {
    expect(first("we need a new webhook on our org")).toBe("create");
    expect(first("the latest release of octo/app")).toBeUndefined();
  });
});

describe("a question about what is (read in an API's catalog)", () => {
  const asks = (text: string) => questionAction(actionWords(text), table);

  it("asks to read when it opens with a wh-word and no word names another action", () => {
    expect(asks("who follows me")).toEqual({ word: "who", action: "read" });
    expect(asks("which repos have I starred?")).toEqual({ word: "which", action: "read" });
    expect(asks("what's the CI status of commit 6dcb09b")).toEqual({ word: "what", action: "read" });
    // A word that names a read keeps it a read.
    expect(asks("where can I view the deploy log")).toEqual({ word: "where", action: "read" });
    // A past participle says what is (session 18): "configured" is no request to configure.
    expect(asks("What's the OIDC sub claim template configured for the acme org?")).toEqual({ word: "what", action: "read" });
    expect(asks("which repos are shared with the deploy team")).toEqual({ word: "which", action: "read" });
  });

  it("asks nothing when another word names an action, the question asks how, or it is no question", () => {
    expect(asks("where do I delete a branch")).toBeUndefined();
    expect(asks("how do I list my repos")).toBeUndefined();
    expect(asks("show my repos")).toBeUndefined();
    expect(asks("do i have any uncommitted changes?")).toBeUndefined();
  });
});

describe("questions in find (issue 27: the REST-API set's questions about the caller's things)", () => {
  const API = [
    ["users.follow", "Follow a user."],
    ["users.list-followers-for-authenticated-user", "List the people following the authenticated user."],
    ["users.list-followers-for-user", "List the people following a user."],
    [
      "repos.get-latest-release",
      "Get the latest published release of a repository. The latest release is the most recent non-prerelease, non-draft release, sorted by the created_at attribute. The created_at attribute is the date of the commit used for the release, and not the date when the release was drafted or published. Assets, notes and tags come with it.",
    ],
    ["repos.list-for-org", "List the repositories of an organization."],
    ["issues.create", "Create an issue in a repository."],
  ];

  it("reads a question about the caller's things as a read of them: the caller's own list first, not the write", async () => {
    // Prepare: the scope rule is what moves it (a question named no action, so no action rule ran).
    const [wired, wordsOnly] = [await apiFinder(API), await apiFinder(API, { scopePenalty: 0 })];
    const first = async (f: Finder) => (await f.find({ query: "who follows me", min_score: 0, schemas: false })).tools[0]!.name;
    // Act, Assess
    expect(await first(wordsOnly)).toBe("imported.users.follow");
    expect(await first(wired)).toBe("imported.users.list-followers-for-authenticated-user");
  });

  it("does not read a question's words as what it hands the tool: the one-word rule still judges it", async () => {
    // A read asked and a read done, every word before the preposition met: an imperative's other words would be
    // its input ("request-input" holds the rule back); a question's are what it asks about ("Dune" is foreign).
    const r = await (await apiFinder(API)).find({ query: "when is the release date of the next Dune film", schemas: false, explain: true });
    const rules = r.verdict_reasons!.map((x) => x.rule);
    expect(rules).toContain("one-word");
    expect(rules).not.toContain("request-input");
  });

  it("leaves a hand-written catalog's questions as they were: there a tool named add may do arithmetic", async () => {
    const f = await smallFinder({ "time.add": "Add a number of days to a date: the date that many days later.", "time.now": "The current time." });
    const r = await f.find({ query: "what date is 90 days from today", min_score: 0, schemas: false, explain: true });
    expect(r.tools[0]!.name).toBe("time.add");
    expect(r.tools[0]!.rules?.some((x) => x.rule === "action")).toBe(false);
  });
});

describe("the action rule in find's rerank (issue 27: the to-do and booking cases)", () => {
  const rows = [
    ["todo.add", "Add an item to the to-do list."],
    ["todo.list", "List the items on the to-do list."],
    ["create-booking", "Create a booking for a seat on a train."],
    ["get-booking", "Get a booking for a train seat by its id."],
  ].map(([name, description]) => ({ name: name!, description: description!, input_schema: { type: "object", properties: {} } }));
  const finderOf = async (query: { actionPenalty?: number } = {}) => {
    const catalog = catalogFromJsonl(rows, { source: "actions.jsonl" });
    const artifact = artifactFromFiles(await emitArtifact({ families: catalog.families, tools: catalog.tools, always_loaded: [] }));
    return createFinder(artifact, { alwaysLoaded: [], query });
  };
  const cases = [
    ["put eggs on my todo list", "todo.add", "todo.list"],
    ["book a train seat", "create-booking", "get-booking"],
  ] as const;

  it("puts the tool whose action the request asks for first, where the words alone put the other first", async () => {
    // Prepare
    const [wired, wordsOnly] = [await finderOf(), await finderOf({ actionPenalty: 0 })];
    for (const [query, right, wrong] of cases) {
      // Act
      const first = async (f: typeof wired) => (await f.find({ query, min_score: 0, schemas: false })).tools[0]!.name;
      // Assess
      expect(await first(wordsOnly)).toMatch(new RegExp(`${wrong}$`));
      expect(await first(wired)).toMatch(new RegExp(`${right}$`));
    }
  });

  it("says in explain which tool the rule lowered, and why", async () => {
    const r = await (await finderOf()).find({ query: "put eggs on my todo list", min_score: 0, schemas: false, explain: true });
    const list = r.tools.find((t) => t.name.endsWith("todo.list"))!;
    expect(list.rules).toContainEqual({ stage: "rerank", rule: "action", effect: "×0.60", detail: "the request asks to create; this tool reads" });
    const [retrieved, reranked] = list.stages!;
    expect(reranked!.score).toBeCloseTo(retrieved!.score * 0.6, 3);
    expect(r.tools.find((t) => t.name.endsWith("todo.add"))!.rules!.some((x) => x.rule === "action")).toBe(false);
  });

  it("leaves a long request as its words ranked it", async () => {
    const f = await finderOf();
    const query = "please could you put eggs and also some milk and bread on my todo list for tomorrow";
    const r = await f.find({ query, min_score: 0, schemas: false, explain: true });
    expect(r.tools.flatMap((t) => t.rules!.filter((x) => x.rule === "action"))).toEqual([]);
    // The factor the rule uses, as a pure function.
    const long = actionWords(query);
    expect(actionFactor(long, requestAction(long, table), "read", { penalty: 0.3, maxWords: 8 })).toBe(1);
  });
});

describe("the action rule on an API's operations (session 17: requests that bring names and numbers)", () => {
  const API = [
    ["packages.get-all-package-versions-for-package-owned-by-org", "Lists all versions of an npm package owned by an organization."],
    ["packages.delete-package-version-for-org", "Deletes a package version in an organization."],
    ["repos.list-for-org", "List the repositories of an organization."],
    ["users.get-authenticated", "Get the authenticated user."],
  ];
  // 13 words: past `actionMaxWords`, within `apiActionMaxWords`.
  const query = "Delete version 1234 of the npm package widgets owned by the acme organization";

  it("weighs a longer request's action in an API's catalog, where operations on one object differ in their verb", async () => {
    // Prepare
    // The verb tie (session 18) would put the delete operation first on its own: off with the action rule, on with it.
    const [wired, wordsOnly, actionOnly] = [await apiFinder(API), await apiFinder(API, { actionPenalty: 0, verbTie: 0 }), await apiFinder(API, { verbTie: 0 })];
    const first = async (f: Finder) => (await f.find({ query, min_score: 0, schemas: false })).tools[0]!.name;
    // Act, Assess
    expect(await first(wordsOnly)).toBe("imported.packages.get-all-package-versions-for-package-owned-by-org");
    expect(await first(actionOnly)).toBe("imported.packages.delete-package-version-for-org");
    expect(await first(wired)).toBe("imported.packages.delete-package-version-for-org");
  });

  it("leaves the same request to its words in a hand-written catalog", async () => {
    const f = await smallFinder({
      "pkg.versions": "Lists package versions for a package owned by an organization.",
      "pkg.delete_version": "Deletes a specific package version.",
    });
    const r = await f.find({ query, min_score: 0, schemas: false, explain: true });
    expect(r.tools.flatMap((t) => t.rules!.filter((x) => x.rule === "action"))).toEqual([]);
  });
});

describe("what a request and an operation act on (the top-object rule's reading)", () => {
  it("reads an imperative's verb whether or not it names an action class, and none from a question", () => {
    const verb = (text: string) => imperativeVerb(actionWords(text), table);
    expect(verb("please pin this repository to my profile")).toBe("pin");
    expect(verb("can you tag the head commit as v1.4.2")).toBe("tag");
    expect(verb("which comments are on issue 45?")).toBeUndefined();
    // A word of Object.prototype is a word like any other.
    expect(verb("constructor of the class")).toBe("constructor");
  });

  it("reads an operation's object from its name: after the verb, before whose; else the family's word", () => {
    expect(operationObject("github.issues.delete-comment").words).toEqual(["comment"]);
    expect(operationObject("github.activity.list-repos-starred-by-user").words).toEqual(["repos", "starred"]);
    expect(operationObject("github.repos.list-for-authenticated-user").words).toEqual(["repos"]);
    expect(operationObject("github.gists.create")).toEqual({ words: ["gists"], last: "create" });
    expect(operationObject("github.projects.create-view-for-org").words).toEqual(["view"]);
  });
});

describe("scope", () => {
  const s = (text: string) => scopeOf(actionWords(text), table);

  it("names the caller's own, an organisation's and a repository's things", () => {
    expect(s("list my repositories")).toBe(Scope.own | Scope.repo);
    expect(s("List repositories for the authenticated user")).toBe(Scope.own | Scope.repo);
    expect(s("List organization repositories")).toBe(Scope.org | Scope.repo);
    expect(s("List enterprise members")).toBe(Scope.org);
    expect(s("get the weather")).toBe(0);
    // A source's or a destination's owner is not whose things the request acts on.
    const owner = (text: string) => scopeOf(ownerWords(actionWords(text), table), table);
    expect(owner("create a pull request from my branch")).toBe(0);
    expect(owner("copy the file into my repo for the acme org")).toBe(Scope.org);
    // The caller's word after a preposition, before another scope's thing, says whose that thing is, not the request's.
    expect(owner("Which teams have access to my repository?")).toBe(Scope.org | Scope.repo);
    expect(owner("show the secrets of my organization")).toBe(Scope.org);
    expect(owner("list my repositories")).toBe(Scope.own | Scope.repo);
    expect(owner("issues assigned to me across every repo")).toBe(Scope.own | Scope.repo);
    // "me" names the caller as "my" does ("issues assigned to me" → the authenticated user's).
    expect(s("issues assigned to me across every repo")).toBe(Scope.own | Scope.repo);
    // So does "I", in a question about the caller's things.
    expect(s("which repos have I starred?")).toBe(Scope.own | Scope.repo);
  });

  it("serves the caller's own request with the caller's own operation, not an organisation's", () => {
    const mine = s("list my repositories");
    expect(scopeFit(mine, s("List repositories for the authenticated user"))).toBe(Fit.same);
    expect(scopeFit(mine, s("List organization repositories"))).toBe(Fit.conflict);
    expect(scopeFit(s("issues of the repo"), s("List issues in a repository"))).toBe(Fit.same);
    expect(scopeFit(s("issues of the repo"), s("List organization issues"))).toBe(Fit.conflict);
    expect(scopeFit(0, s("List organization issues"))).toBe(Fit.unknown);
    expect(scopeFit(mine, 0)).toBe(Fit.unknown);
  });
});

describe("the action table", () => {
  it("is current: build/data/actions.json is what build/actions.ts derives from the seeds and WordNet", async () => {
    expect(readFileSync(FILE, "utf8")).toBe(actionTableJson(await buildActionTable()));
  });

  it("keeps every seed in its class, and gives a word one class only", async () => {
    const t = await buildActionTable();
    expect(t.seeds.remind).toBe("create");
    expect(t.seeds.list).toBe("read");
    expect(t.seeds.cancel).toBe("delete");
    for (const w of Object.keys(t.verbs)) expect(Object.hasOwn(t.seeds, w)).toBe(false);
    // WordNet grows the classes: a synonym and a noun of the act no seed names.
    expect(t.verbs.alter).toBe("update");
    expect(t.nouns.booking).toBe("create");
    expect(t.nouns.removal).toBe("delete");
  });
});

describe("the scope rule in find's rerank (issue 27: the caller's own operations)", () => {
  const REGISTRY = {
    "repos.list-for-org": "List the repositories of an organization.",
    "repos.list-for-authenticated-user": "List the repositories the authenticated user can access.",
    "repos.list-for-user": "List the public repositories of a user.",
    "repos.create-in-org": "Create a repository in an organization.",
    "repos.create-for-authenticated-user": "Create a repository for the authenticated user.",
    "issues.list": "List the issues of a repository.",
  };

  it("puts the caller's own operation first where the words alone put an organisation's first", async () => {
    // Prepare
    const [wired, wordsOnly] = [await smallFinder(REGISTRY), await smallFinder(REGISTRY, { scopePenalty: 0 })];
    for (const [query, before] of [
      ["list my repositories", "repos.list-for-org"],
      ["create a private repo for myself", "repos.create-in-org"],
    ] as const) {
      // Act
      const first = async (f: typeof wired) => (await f.find({ query, min_score: 0, schemas: false })).tools[0]!.name;
      // Assess
      expect(await first(wordsOnly), query).toBe(before);
      expect(await first(wired), query).toMatch(/for-authenticated-user$/);
    }
  });

  it("says in explain whose things the request and the lowered tool are about", async () => {
    const r = await (await smallFinder(REGISTRY)).find({ query: "list my repositories", min_score: 0, schemas: false, explain: true });
    const org = r.tools.find((t) => t.name === "repos.list-for-org")!;
    expect(org.rules).toContainEqual({
      stage: "rerank",
      rule: "scope",
      effect: "×0.60",
      detail:
        "the request is about the caller's own things and a repository's; this tool is about an organisation's and a repository's, while a tool near the top is about the request's",
    });
  });
});
