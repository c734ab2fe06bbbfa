// Projection of every source (tool files, MCP snapshots, JSONL catalogs) into the artifact's catalog contract.
import { describe, expect, it } from "vitest";
import { loadRegistry } from "../../../build/load.js";
import { governanceFromAnnotations } from "../../../build/sources/snapshot.js";
import { fixture } from "./helpers.js";

describe("projection to the catalog", async () => {
  const reg = await loadRegistry(fixture("valid"));
  const tool = (name: string) => reg.catalog.tools.find((t) => t.name === name);

  it("projects an MCP snapshot tool: first sentence, backend, read-only hint without false contradictions", () => {
    expect(tool("everything.echo")).toMatchInlineSnapshot(`
      {
        "backend": {
          "headers": {
            "Authorization": "Bearer \${EVERYTHING_TOKEN}",
          },
          "kind": "mcp",
          "tool": "echo",
          "url": "\${EVERYTHING_MCP_URL}",
        },
        "description": "Echoes back the input string.",
        "family": "everything",
        "governance": {
          "read_only": true,
        },
        "input_schema": {
          "$schema": "http://json-schema.org/draft-07/schema#",
          "properties": {
            "message": {
              "type": "string",
            },
          },
          "required": [
            "message",
          ],
          "type": "object",
        },
        "kind": "mcp",
        "name": "everything.echo",
        "source": "snapshots/everything.json",
        "timeout_ms": 60000,
      }
    `);
  });

  it("falls back to the title when an MCP tool has no description", () => {
    expect(tool("everything.toggle-logging")?.description).toBe("Toggle simulated logging");
    expect(tool("everything.toggle-logging")?.governance).toEqual({ read_only: false, destructive: false, idempotent: false });
  });

  it("projects an http tool with its templates verbatim, governance and timeout_ms from timeout_secs", () => {
    expect(tool("weather.current")).toMatchInlineSnapshot(`
      {
        "backend": {
          "egress": [
            "\${WEATHER_URL}",
          ],
          "headers": {
            "Accept": "application/json",
            "X-Api-Key": "\${WEATHER_API_KEY}",
          },
          "kind": "http",
          "method": "GET",
          "output": "json",
          "query": {
            "units": "{{ input.units }}",
          },
          "url": "\${WEATHER_URL}/current/{{input.city}}",
        },
        "description": "Current weather for a city.",
        "family": "weather",
        "governance": {
          "read_only": true,
        },
        "input_schema": {
          "$schema": "http://json-schema.org/draft-07/schema#",
          "properties": {
            "city": {
              "description": "City name",
              "examples": [
                "Paris",
              ],
              "pattern": "^[A-Za-z ]+$",
              "type": "string",
            },
            "units": {
              "description": "Unit system",
              "enum": [
                "metric",
                "imperial",
              ],
            },
          },
          "required": [
            "city",
          ],
          "type": "object",
        },
        "kind": "http",
        "name": "weather.current",
        "source": "families/weather/tools.yaml",
        "tags": [
          "temperature",
          "conditions",
        ],
        "timeout_ms": 5000,
      }
    `);
  });

  it("defaults timeout to 60 s and the input schema to an empty object schema", () => {
    expect(tool("meta.summarize")?.timeout_ms).toBe(60_000);
    expect(tool("git.log")?.backend).toEqual({
      kind: "exec",
      command: "git",
      args: ["-C", "{{input.repo}}", "log", "-n", "{{input.count}}", "--oneline"],
      // The family's env (GIT_TERMINAL_PROMPT, GIT_PAGER: less) merged with the tool's (GIT_PAGER: cat wins).
      env: { GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat" },
      output: "text",
    });
  });

  it("keeps the id of JSONL tools and forces the family the registry names", () => {
    expect(tool("imported.lookup")).toMatchObject({ id: "x::lookup", family: "imported", source: "catalogs/imported.jsonl" });
    expect(tool("imported.random_word")?.input_schema).toEqual({ type: "object", properties: {} });
  });

  it("lists families with their tool counts and a few example verbs", () => {
    expect(reg.catalog.families).toMatchInlineSnapshot(`
      [
        {
          "description": "The gateway's own tools.",
          "examples": [
            "reshape",
            "summarize",
          ],
          "name": "meta",
          "required": true,
          "tool_count": 2,
        },
        {
          "description": "Current weather and forecasts from a public HTTP API.",
          "examples": [
            "current",
            "subscribe",
          ],
          "name": "weather",
          "required": true,
          "tool_count": 2,
          "variables": {
            "WEATHER_API_KEY": {
              "secret": true,
            },
            "WEATHER_TOKEN": {
              "secret": true,
            },
            "WEATHER_URL": {
              "description": "Base URL of the weather API",
              "secret": false,
            },
          },
        },
        {
          "description": "Read-only inspection of local git repositories.",
          "examples": [
            "log",
          ],
          "name": "git",
          "required": true,
          "tool_count": 1,
        },
        {
          "description": "Demonstration tools of the MCP reference server.",
          "examples": [
            "echo",
            "toggle-logging",
          ],
          "name": "everything",
          "required": true,
          "tool_count": 2,
          "variables": {
            "EVERYTHING_MCP_URL": {
              "secret": false,
            },
            "EVERYTHING_TOKEN": {
              "secret": true,
            },
          },
        },
        {
          "description": "Tools imported from a JSONL catalog.",
          "examples": [
            "lookup",
            "random_word",
          ],
          "name": "imported",
          "required": false,
          "tool_count": 2,
        },
      ]
    `);
    expect(reg.alwaysLoaded).toEqual(["meta.reshape"]);
  });

  it("maps MCP hints per the MCP spec: destructive/idempotent only count when not read-only", () => {
    expect(governanceFromAnnotations({ readOnlyHint: true, destructiveHint: true })).toEqual({ read_only: true });
    expect(governanceFromAnnotations({ destructiveHint: true, idempotentHint: false })).toEqual({ destructive: true, idempotent: false });
    expect(governanceFromAnnotations(undefined)).toEqual({});
  });
});
