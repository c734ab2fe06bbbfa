// An MCP server snapshot: the `tools/list` answer of a live server, written by `npm run registry:pull`
// and read offline by the build, so the build stays deterministic.
import { z } from "zod";
import { FORMAT_VERSION } from "./tool.js";

export const SnapshotTool = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
});

export const SnapshotFile = z.strictObject({
  version: z.number().int().positive().default(FORMAT_VERSION),
  server: z.strictObject({ name: z.string(), version: z.string() }),
  tools: z.array(SnapshotTool),
});
export type SnapshotFile = z.infer<typeof SnapshotFile>;
