// A brief is a declared packing list for a job: pre-loaded on the belt as declared ∩ granted.
import * as z from "zod";
import { GovernanceSelector } from "./policy.js";
import { FORMAT_VERSION } from "./tool.js";

export const BriefFile = z.strictObject({
  version: z.number().int().positive().default(FORMAT_VERSION),
  name: z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/),
  description: z.string(),
  tools: z.array(z.string()).min(1).describe("Tool names or `*` globs"),
  where: GovernanceSelector.optional().describe("Only the tools among `tools` whose governance matches (e.g. read_only: true); read when briefs are loaded"),
  read_only: z.boolean().optional().describe("A session opened with this brief runs only tools declaring read_only: true"),
});
export type BriefFile = z.infer<typeof BriefFile>;
