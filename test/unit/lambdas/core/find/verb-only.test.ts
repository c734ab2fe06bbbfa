// Issue 27: the example registry's none on requests no tool serves. A tool named by what it does met a
// request in that verb alone while the request asked it done to something else ("convert 50 USD to euros"
// → time.convert, "set an alarm for 7am" → kv.set): the name's word gave a confident match. The judge's
// `verb-only` rule answers none when the top tool met nothing specific but the request's verb and no tool
// just behind meets what the request acts on; it holds back when the request's head is its input.
import { beforeAll, describe, expect, it } from "vitest";
import { createFinder } from "../../../../../lambdas/core/find/index.js";
import type { Artifact } from "../../../../../lambdas/core/ports.js";
import { exampleArtifact } from "../../../../helpers/example-registry.js";

let artifact: Artifact;
beforeAll(async () => {
  artifact = await exampleArtifact();
}, 60_000);

describe("the judge's verb-only rule", () => {
  it("answers none when the top tool met only the request's verb, a word of its name, and says why", async () => {
    const [judged, off] = [createFinder(artifact), createFinder(artifact, { query: { verbOnlyVerdict: 1 } })];
    for (const [query, top, verb, word] of [
      ["convert 50 USD to euros", "time.convert", "convert", "usd"],
      ["set an alarm for 7am", "kv.set", "set", "alarm"],
      ["create a new folder called backups", "notes.create", "create", "folder"],
      ["summarize the latest news headlines", "writing.summarize", "summarize", "headlines"],
    ] as const) {
      const [r, before] = [await judged.find({ query, schemas: false, explain: true }), await off.find({ query, schemas: false })];
      // Without the rule each was a match for the tool its verb names.
      expect({ query, verdict: before.verdict, top: before.tools[0]?.name }).toEqual({ query, verdict: "match", top });
      expect({ query, verdict: r.verdict }).toEqual({ query, verdict: "none" });
      expect(r.verdict_reasons).toContainEqual({
        stage: "judge",
        rule: "verb-only",
        effect: "×0.60",
        detail: `the top tool met the request only in its verb ("${verb}", a word of the tool's name); what the request acts on ("${word}") is met by no tool just behind that could do it: the tool does the asked thing to something else`,
      });
    }
  });

  it("holds back when the request's head is the input it hands the tool, or the tool or one just behind meets more of it", async () => {
    const f = createFinder(artifact);
    for (const [query, top, why] of [
      ["convert 9am London time to Pacific time", "time.convert", "the tool meets specific words besides its verb"],
      ["convert this word document to pdf", "time.convert", "text.change_case, just behind, meets 'word'"],
      ["delete the key cache", "kv.delete", "the head's 'key' is an everyday word the tool is tagged with"],
      ["reverse hello", "text.reverse", "a bare word after the verb is its input"],
      ["set foo to bar", "kv.set", "a bare word after the verb is its input"],
      ["shuffle this playlist: intro, verse, bridge, outro", "random.shuffle", "the head labels the input after the colon"],
      ["delete the key old_cache", "kv.delete", "the head's 'key' is an everyday word the tool is tagged with"],
      ["remember the number 42 as my lucky number", "kv.set", "the verb is no word of the tool's name"],
      ["convert photo.png to jpg", "time.convert", "the head is a file name, data"],
    ] as const) {
      const r = await f.find({ query, schemas: false, explain: true, min_score: 0 });
      expect({ query, top: r.tools[0]?.name }).toEqual({ query, top });
      expect({ query, why, fired: r.verdict_reasons!.some((x) => x.rule === "verb-only") }).toEqual({ query, why, fired: false });
    }
  });
});
