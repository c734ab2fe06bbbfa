// The rule helpers on their own: secrets, sentences, templates and JSON Schema dialects.
import { describe, expect, it } from "vitest";
import { checkDescription, firstSentence } from "../../../../build/validate/description.js";
import { checkJsonSchema } from "../../../../build/validate/json-schema.js";
import { checkNamedValues, checkUrl, isReferenceOnly, isSecretName } from "../../../../build/validate/secrets.js";
import { checkTemplate } from "../../../../build/validate/templates.js";
import { canonicalName } from "../../../../registry/contract/names.js";

describe("secrets", () => {
  it("accepts values built only from ${ENV} or input references, with an optional scheme word", () => {
    for (const v of ["${TOKEN}", "Bearer ${TOKEN}", "Basic ${USER}${PASS}", "token {{input.token}}"]) expect(isReferenceOnly(v), v).toBe(true);
    for (const v of ["Bearer abc", "${TOKEN}x", "", "Bearer "]) expect(isReferenceOnly(v), v).toBe(false);
  });

  it("knows credential names without flagging look-alikes", () => {
    for (const n of ["Authorization", "X-Api-Key", "GITHUB_TOKEN", "x-auth-token", "DB_PASSWORD", "client_secret", "Cookie"])
      expect(isSecretName(n), n).toBe(true);
    for (const n of ["Accept", "max_tokens", "TOKENIZERS_PARALLELISM", "GIT_PAGER", "X-Request-Id"]) expect(isSecretName(n), n).toBe(false);
  });

  it("flags well-known key formats whatever the name, and passwords in URLs", () => {
    expect(checkNamedValues({ "X-Custom": "sk-abcdefghijklmnopqrstuvwxyz" }, ["headers"], "header").map((f) => f.code)).toEqual(["SECRET_LITERAL"]);
    expect(checkUrl("https://bob:hunter2@example.org/x", ["url"]).map((f) => f.code)).toEqual(["SECRET_LITERAL"]);
    expect(checkUrl("https://bob:${PASS}@example.org/x?access_token=${TOKEN}&q={{input.q}}", ["url"])).toEqual([]);
  });
});

describe("descriptions", () => {
  it("counts sentences without tripping on abbreviations, versions or CJK text", () => {
    expect(checkDescription("List files, e.g. logs or configs.")).toEqual([]);
    expect(checkDescription("Bump to v1.2.3 and tag it.")).toEqual([]);
    expect(checkDescription("使用必应搜索指定的关键词")).toEqual([]);
    expect(checkDescription("One. Two.")[0]?.severity).toBe("warning");
    expect(checkDescription("第一句。第二句。")[0]?.severity).toBe("warning");
  });

  it("takes the first sentence of MCP paragraphs", () => {
    expect(firstSentence("Echoes back the input. Useful for tests.")).toBe("Echoes back the input.");
    expect(firstSentence("Works on e.g. files. And more.")).toBe("Works on e.g. files.");
    expect(firstSentence("No full stop")).toBe("No full stop");
  });
});

describe("templates", () => {
  const props = new Set(["q", "user"]);
  it("allows declared input properties, nested paths and whitespace", () => {
    expect(checkTemplate({ at: ["url"], text: "/s?q={{input.q}}&u={{ input.user.id }}" }, props)).toEqual([]);
  });
  it("refuses other roots, undeclared properties, and unbalanced braces", () => {
    const codes = (text: string) => checkTemplate({ at: ["x"], text }, props).map((f) => f.message);
    expect(codes("{{secrets.x}}")).toHaveLength(1);
    expect(codes("{{input.nope}}")[0]).toContain("`nope`");
    expect(codes("{{input.q}")).toEqual(["unbalanced `{{`/`}}` in template"]);
    expect(codes("{{input}}")).toHaveLength(1);
  });
});

describe("JSON Schema dialects", () => {
  it("reads draft-07 when $schema says so and 2020-12 otherwise", () => {
    const tuple07 = { $schema: "http://json-schema.org/draft-07/schema#", type: "array", items: [{ type: "string" }], additionalItems: false };
    expect(checkJsonSchema(tuple07, ["s"])).toEqual([]);
    // In 2020-12 `items` takes one schema, not an array: the same tuple is invalid there.
    const { $schema: _, ...tuple2020 } = tuple07;
    // …and `additionalItems` is not a 2020-12 keyword: a warning in an imported schema.
    expect(checkJsonSchema(tuple2020, ["s"]).map((f) => [f.severity ?? "error", f.at.join(".")])).toEqual([
      ["warning", "s.additionalItems"],
      ["error", "s.items"],
    ]);
    expect(checkJsonSchema({ type: "array", prefixItems: [{ type: "string" }] }, ["s"])).toEqual([]);
  });
  it("warns (never fails) on unknown keywords in imported schemas, and fails them in hand-written ones", () => {
    const s = { type: "object", properties: { q: { type: "string", descripton: "x", "x-example": "a" } } };
    const at = (mode: "strict" | "lenient") => checkJsonSchema(s, ["s"], mode).map((f) => `${f.severity ?? "error"} ${f.at.join(".")}`);
    expect(at("lenient")).toEqual(["warning s.properties.q.descripton"]);
    expect(at("strict")).toEqual(["error s.properties.q.descripton"]);
  });
  it("resolves local references and accepts vendor keywords", () => {
    expect(checkJsonSchema({ type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: { type: "string" } }, "x-vendor": 1 }, ["s"])).toEqual([]);
    expect(
      checkJsonSchema(
        { $schema: "http://json-schema.org/draft-07/schema#", definitions: { a: { type: "string" } }, properties: { a: { $ref: "#/definitions/a" } } },
        ["s"],
      ),
    ).toEqual([]);
  });
  it("finds broken regular expressions in patternProperties, not in a property called pattern", () => {
    expect(checkJsonSchema({ type: "object", properties: { pattern: { type: "string" } } }, ["s"])).toEqual([]);
    expect(checkJsonSchema({ type: "object", patternProperties: { "(": {} } }, ["s"]).map((f) => f.at)).toEqual([["s", "patternProperties", "("]]);
  });
});

describe("canonical names", () => {
  it("treat case and _ - . as the same", () => {
    expect(canonicalName("Git.Log_Recent")).toBe(canonicalName("git-log.recent"));
    expect(canonicalName("git.log")).not.toBe(canonicalName("git.logs"));
  });
});
