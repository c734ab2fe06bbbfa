// Which JSON Schema dialect a tool schema is written in: one rule for the build check and the call
// gateway, so a schema is enforced on calls exactly as the build validated it.

export type SchemaDialect = "draft-07" | "2020-12";

const DRAFT7 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

/** No `$schema` means 2020-12 (the registry's default); `undefined` means a dialect we do not support. */
export function schemaDialect(schema: { $schema?: unknown }): SchemaDialect | undefined {
  const uri = schema.$schema;
  if (uri === undefined || (typeof uri === "string" && DRAFT2020.test(uri))) return "2020-12";
  if (typeof uri === "string" && DRAFT7.test(uri)) return "draft-07";
  return undefined;
}
