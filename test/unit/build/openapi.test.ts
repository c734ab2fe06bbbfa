// OpenAPI → tool definitions, the pure parts: schema conversion and tool names.
import { describe, expect, it } from "vitest";
import { familyFromOpenApi, operationsOf, verbOf } from "../../../build/openapi/operations.js";
import { toJsonSchema } from "../../../build/openapi/schema.js";
import { checkInputSchema } from "../../../build/validate/json-schema.js";

describe("toJsonSchema", () => {
  it("turns OpenAPI 3.0 keywords into JSON Schema 2020-12 and drops what an agent cannot use", () => {
    const out = toJsonSchema({
      type: "object",
      required: ["n", "gone"],
      properties: {
        n: { type: "integer", minimum: 0, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false, example: 3, format: "int32" },
        s: { type: "string", nullable: true, format: "markdown", pattern: "(?<=a)b", "x-internal": true },
        e: { enum: ["a", "b"], type: "string", nullable: true },
        o: { oneOf: [{ type: "string" }, { type: "integer" }], nullable: true },
        t: { type: "array", items: [{ type: "string" }, { type: "number" }] },
      },
      discriminator: { propertyName: "n" },
      xml: { name: "x" },
      externalDocs: { url: "https://example.com" },
    });
    expect(out).toEqual({
      type: "object",
      required: ["n"],
      properties: {
        n: { type: "integer", exclusiveMinimum: 0, maximum: 9, examples: [3], format: "int32" },
        s: { type: ["string", "null"], pattern: "(?<=a)b" },
        e: { enum: ["a", "b", null], type: ["string", "null"] },
        o: { oneOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] },
        t: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] },
      },
    });
    expect(checkInputSchema(out, [], "strict")).toEqual([]);
  });

  it("cuts a recursive schema (a dereferenced cyclic $ref) at the repetition", () => {
    const node: Record<string, unknown> = { type: "object", properties: { name: { type: "string" } } };
    (node.properties as Record<string, unknown>).parent = node;
    expect(toJsonSchema(node)).toEqual({ type: "object", properties: { name: { type: "string" }, parent: {} } });
  });

  it("keeps a schema shared by two properties (not a cycle) in both", () => {
    const shared = { type: "string", minLength: 1 };
    expect(toJsonSchema({ type: "object", properties: { a: shared, b: shared } })).toEqual({ type: "object", properties: { a: shared, b: shared } });
  });
});

describe("tool names", () => {
  it("come from operationIds, with `/` as a dot, or from the method and path", () => {
    expect(verbOf({ id: "repos/get-content", method: "get", path: "/x" })).toBe("repos.get-content");
    expect(verbOf({ id: "2fa: enable!", method: "post", path: "/x" })).toBe("fa.enable");
    expect(verbOf({ id: undefined, method: "get", path: "/pets/{petId}/photos" })).toBe("get_pets_petId_photos");
  });

  it("stay distinct when two operationIds sanitize to the same name", () => {
    const doc = {
      paths: {
        "/a": { get: { operationId: "a/b", responses: {} } },
        "/b": { get: { operationId: "a.b", responses: {} } },
        "/c": { get: { operationId: "A_B", responses: {} } },
      },
    };
    const f = familyFromOpenApi(doc, "x", operationsOf(doc).operations);
    expect(f.tools.map((t) => t.name)).toEqual(["A_B_3", "a.b", "a.b_2"]);
  });
});
