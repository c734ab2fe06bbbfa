// Regression (issue 28): what a registry states beside a schema is checked against it, and a name the
// gateway changes is said out loud. A hand-written `examples: ["x1"]` under `pattern: "^t[0-9]+$"`
// passed registry:check; a JSONL tool named `read file/now` became `read_file_now` without a word.
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, ROOT } from "./cli-helpers.js";

const temps: string[] = [];
afterAll(async () => Promise.all(temps.map((d) => rm(d, { recursive: true, force: true }))));

async function registry(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-stated-"));
  temps.push(dir);
  await cp(join(ROOT, "test/fixtures/registries/valid"), dir, { recursive: true });
  return dir;
}

const TICKETS_FAMILY =
  "  - name: tickets\n    description: Support tickets of a help desk.\n    source: { tools: families/tickets }\n    variables:\n      TICKETS_URL: { description: Base URL }\n";

describe("values stated beside a schema", () => {
  it("registry:check refuses a hand-written example its own schema refuses, and a `defaults` value that does not fit its input", async () => {
    const dir = await registry();
    await appendFile(join(dir, "families.yaml"), TICKETS_FAMILY);
    await mkdir(join(dir, "families/tickets"));
    await writeFile(
      join(dir, "families/tickets/tickets.yaml"),
      [
        "version: 1",
        "tools:",
        "  - name: get",
        "    kind: http",
        "    description: Read one support ticket by its id.",
        "    url: ${TICKETS_URL}/tickets/{{input.id}}",
        "    query: { page: '{{input.page}}' }",
        "    defaults: { page: 'first' }",
        "    read_only: true",
        "    input_schema:",
        "      type: object",
        "      required: [id]",
        "      properties:",
        "        id: { type: string, pattern: '^t[0-9]+$', description: The ticket id, examples: [x1] }",
        "        page: { type: integer, description: Page of comments }",
        "",
      ].join("\n"),
    );
    const r = await cli(["check", "--registry", dir, "--format", "json"]);
    expect(r.code).toBe(1);
    const found = (JSON.parse(r.stdout) as { diagnostics: { severity: string; tool?: string; path: string; message: string }[] }).diagnostics
      .filter((d) => d.tool === "tickets.get")
      .map((d) => [d.severity, d.path]);
    expect(found).toEqual([
      ["error", "$.tools[0].input_schema.properties.id.examples[0]"],
      ["error", "$.tools[0].defaults.page"],
    ]);
  });

  it("registry:check warns (does not refuse) about an example a pulled MCP snapshot states against its own schema", async () => {
    const dir = await registry();
    const file = join(dir, "snapshots/everything.json");
    const snap = JSON.parse(await readFile(file, "utf8")) as { tools: { inputSchema: { properties: Record<string, object> } }[] };
    snap.tools[0]!.inputSchema.properties.message = { type: "string", maxLength: 3, examples: ["far too long"] };
    await writeFile(file, JSON.stringify(snap));
    const r = await cli(["check", "--registry", dir, "--format", "json"]);
    expect(r.code).toBe(0);
    const found = (JSON.parse(r.stdout) as { diagnostics: { severity: string; path: string }[] }).diagnostics.filter((d) => d.path.includes("examples"));
    expect(found).toEqual([expect.objectContaining({ severity: "warning", path: "$.tools[0].inputSchema.properties.message.examples[0]" })]);
  });

  it("registry:import names each tool the gateway serves under another name, original and new", async () => {
    const dir = await registry();
    const jsonl = join(dir, "catalog.jsonl");
    await writeFile(
      jsonl,
      `${JSON.stringify({ name: "read file/now", description: "Read a file now." })}\n${JSON.stringify({ name: "list_files", description: "List files." })}\n`,
    );
    const r = await cli(["import", "--jsonl", jsonl, "--family", "disk", "--registry", dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("1 name changed on import (agents see the new one):\n  read file/now → disk.read_file_now\n");
    expect(r.stdout).toContain(`next: npm run registry:check -- --registry ${dir}`);
  });
});
