// `credentials: per_principal` in families.yaml: accepted for http and mcp families and carried into the
// artifact in its one form; refused (naming the family and the reason) for families that call no HTTP
// upstream, for headers the HTTP layer owns, and when a template of the family writes the same header.
import { describe, expect, it } from "vitest";
import { loadRegistry } from "../../../build/load.js";
import { memoryFs } from "../../../build/registry-fs.js";

const tool = (name: string, kind: string, extra = "") =>
  `  - name: ${name}\n    kind: ${kind}\n    description: Do ${name} for the caller.\n${kind === "http" ? '    url: "https://crm.example.com/v1/items"\n' : ""}${kind === "exec" ? "    command: echo hi\n" : ""}${extra}`;
const family = (name: string, rest: string) => `  - name: ${name}\n    description: The ${name} family.\n    source: { tools: families/${name} }\n${rest}`;

async function load(families: string, files: Record<string, string>) {
  const reg = await loadRegistry("/", { fs: memoryFs({ "families.yaml": `families:\n${families}`, ...files }) });
  return { reg, errors: reg.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.path}: ${d.message}`) };
}

describe("families.yaml credentials", () => {
  it("accepts the shorthand and the long form on http families and carries the normalised form into the catalog", async () => {
    const { reg, errors } = await load(
      family("crm", "    credentials: per_principal\n") + family("wiki", "    credentials: { per_principal: { header: X-Api-Key } }\n"),
      { "families/crm/tools.yaml": `tools:\n${tool("get", "http")}`, "families/wiki/tools.yaml": `tools:\n${tool("get", "http")}` },
    );
    expect(errors).toEqual([]);
    expect(reg.catalog.families.map((f) => [f.name, f.credentials])).toEqual([
      ["crm", { per_principal: { header: "Authorization", scheme: "Bearer" } }],
      ["wiki", { per_principal: { header: "X-Api-Key" } }],
    ]);
  });

  it("refuses a family with tools that call no HTTP upstream, a reserved or malformed header, and a template writing the same header", async () => {
    const { errors } = await load(
      family("mixed", "    credentials: per_principal\n") +
        family("hosty", "    credentials: { per_principal: { header: Host } }\n") +
        family("bad", '    credentials: { per_principal: { header: "X Key", scheme: "Be arer" } }\n') +
        family("clash", "    credentials: per_principal\n    variables: { CLASH_TOKEN: { secret: true } }\n"),
      {
        "families/mixed/tools.yaml": `tools:\n${tool("get", "http")}${tool("run", "exec")}`,
        "families/hosty/tools.yaml": `tools:\n${tool("get", "http")}`,
        "families/bad/tools.yaml": `tools:\n${tool("get", "http")}`,
        "families/clash/tools.yaml": `tools:\n${tool("get", "http", '    headers: { authorization: "Bearer ${CLASH_TOKEN}" }\n')}`,
      },
    );
    const has = (path: string, text: string) =>
      expect(
        errors.some((e) => e.startsWith(path) && e.includes(text)),
        `${path} ${text}\n${errors.join("\n")}`,
      ).toBe(true);
    has("$.families[0].credentials", "mixed.run (exec)");
    has("$.families[1].credentials.per_principal.header", "set by the HTTP layer");
    has("$.families[2].credentials.per_principal.header", "not an HTTP header name");
    has("$.families[2].credentials.per_principal.scheme", "not an auth scheme");
    has("$.families[3].credentials", "tool `clash.get` writes `authorization`");
  });
});
