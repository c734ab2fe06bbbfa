// The GitHub eval set stays usable: its catalog comes out of the importer whole and keyed by operationId,
// and every request names only operations that catalog has.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { goldGroups, loadRegistry, readJsonl, type EvalQuery } from "../../harness.js";
import { GITHUB_SPEC, githubCatalog, writeGithubRegistry, type GithubTool } from "./catalog.js";

type SetQuery = EvalQuery & { difficulty?: string };

const queries = readJsonl<SetQuery>(join(import.meta.dirname, "queries.jsonl"));
// The held-out files, measured once per round and never read for tuning: only their gold is checked here.
const heldOut = [
  "heldout-2.jsonl",
  "heldout-3.jsonl",
  "heldout-4.jsonl",
  "heldout-5.jsonl",
  "heldout-6.jsonl",
  "heldout-7.jsonl",
  "heldout-8.jsonl",
  "heldout-9.jsonl",
  "heldout-10.jsonl",
].flatMap((f) => readJsonl<SetQuery>(join(import.meta.dirname, f)));
const normal = (q: string) =>
  q
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

describe("github catalog", () => {
  let tools: GithubTool[];
  beforeAll(async () => {
    tools = await githubCatalog();
  });

  it("holds more than 1,000 tools with unique ids and names, in the importer's order", () => {
    expect(tools.length).toBeGreaterThan(1000);
    expect(new Set(tools.map((t) => t.id)).size).toBe(tools.length);
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    const names = tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
  });

  it("keys each tool by an operationId of the document", () => {
    const doc = JSON.parse(readFileSync(GITHUB_SPEC, "utf8")) as { paths: Record<string, Record<string, { operationId?: string }>> };
    const ids = new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op?.operationId)));
    expect(tools.filter((t) => !ids.has(t.id)).map((t) => t.id)).toEqual([]);
    expect(tools.find((t) => t.id === "pulls/create")).toMatchObject({ name: "pulls.create", description: "Create a pull request" });
  });

  it("has, for every gold group of queries.jsonl and the held-out files, an operation of the group; every gold id is an operation of the document", () => {
    const ids = new Set(tools.map((t) => t.id));
    const doc = JSON.parse(readFileSync(GITHUB_SPEC, "utf8")) as { paths: Record<string, Record<string, { operationId?: string }>> };
    const documented = new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op?.operationId)));
    const groups = [...queries, ...heldOut].flatMap((q) => goldGroups(q).map((g) => ({ id: q.id, g })));
    // A group may name an operation the importer leaves out (markdown/render-raw: a text/plain body) beside one it keeps.
    expect(groups.filter(({ g }) => !g.some((op) => ids.has(op))).map(({ id, g }) => `${id}: ${g.join("|")}`)).toEqual([]);
    expect(groups.flatMap(({ id, g }) => g.filter((op) => !documented.has(op)).map((op) => `${id}: ${op}`))).toEqual([]);
  });

  it("builds, through the registry path, the imported folder into the same tools keyed by the same operationIds", async () => {
    const dir = await mkdtemp(join(tmpdir(), "github-registry-"));
    try {
      await writeGithubRegistry(dir);
      const loaded = await loadRegistry(dir);
      expect(loaded.artifact.tools.length).toBe(tools.length);
      expect(loaded.artifact.tools.map((t) => [t.name, loaded.keyOf.get(t.name)])).toEqual(tools.map((t) => [`github.${t.name}`, t.id]));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("github queries", () => {
  it("are well formed: unique ids and requests, a dev or the measured heldout split, gold on answerable requests only", () => {
    expect(new Set(queries.map((q) => q.id)).size).toBe(queries.length);
    expect(new Set(queries.map((q) => normal(q.query))).size).toBe(queries.length);
    for (const q of queries) {
      expect(["dev", "heldout"], q.id).toContain(q.split);
      if (q.kind === "answerable" || q.difficulty !== undefined) expect(["easy", "medium", "hard"], q.id).toContain(q.difficulty);
      expect(["answerable", "near_miss", "unanswerable"], q.id).toContain(q.kind);
      if (q.kind === "answerable") expect(q.gold_ids?.length && q.gold_ids.every((g) => g.length > 0), q.id).toBeTruthy();
      else expect(q.gold_ids, q.id).toBeUndefined();
    }
  });
});
