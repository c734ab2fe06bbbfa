/** A JSON Schema document as stored in the catalog (validated with ajv at build time). */
export type JsonSchema = { [key: string]: unknown };
