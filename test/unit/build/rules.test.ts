// One fixture registry per registry rule; each test pins code, file, line, tool, JSON path and message.
import { describe, expect, it } from "vitest";
import { loadRegistry } from "../../../build/load.js";
import { CONVENTION_CODES } from "../../../build/validate/conventions.js";
import { check, fixture, show } from "./helpers.js";

describe("registry rules", () => {
  it("accepts a registry with every kind, a snapshot, a JSONL catalog, a brief and a policy", async () => {
    const reg = await loadRegistry(fixture("valid"));
    expect(reg.diagnostics).toEqual([]);
    expect(reg.ok).toBe(true);
    expect(reg.catalog.tools.map((t) => t.name).sort()).toMatchInlineSnapshot(`
      [
        "everything.echo",
        "everything.toggle-logging",
        "git.log",
        "imported.lookup",
        "imported.random_word",
        "meta.reshape",
        "meta.summarize",
        "weather.current",
        "weather.subscribe",
      ]
    `);
    expect(reg.briefs.map((b) => b.name)).toEqual(["release"]);
    expect(reg.policy?.principals[0]?.id).toBe("dev");
  });

  it("regression (issue #10): a builtin handler the gateway does not implement is a check error, not a 501 at call time", async () => {
    expect(await check("unknown-builtin-handler")).toMatchInlineSnapshot(`
      [
        "error INVALID_VALUE families/demo/tools.yaml:3 demo.nope $.tools[0].handler: \`nope\` is not a builtin handler of this gateway, so every call would fail: use one of \`find\`, \`call\`, \`reshape\`, or another kind (http, mcp, exec, prompt)",
        "error INVALID_VALUE families/demo/tools.yaml:4 demo.typo $.tools[1].handler: \`reshap\` is not a builtin handler of this gateway, so every call would fail: use one of \`find\`, \`call\`, \`reshape\` (did you mean \`reshape\`?), or another kind (http, mcp, exec, prompt)",
      ]
    `);
  });

  it("warns (never fails) on the conventions the example registry keeps: documented parameters, examples for required ones, declared governance, optional inputs inside exec arguments, inputs no template sends", async () => {
    const reg = await loadRegistry(fixture("conventions"));
    expect(reg.ok).toBe(true);
    expect(await check("conventions", { conventions: true })).toMatchInlineSnapshot(`
      [
        "warning PARAM_UNDOCUMENTED families/shop/tools.yaml:11 shop.product $.tools[0].input_schema.properties.id: parameter \`id\` has no description: say what it is and its unit or format",
        "warning REQUIRED_WITHOUT_EXAMPLE families/shop/tools.yaml:11 shop.product $.tools[0].input_schema.properties.id: required parameter \`id\` has no \`examples\`: add one value an agent could send (\`examples: [...]\`)",
        "warning GOVERNANCE_UNDECLARED families/shop/tools.yaml:2 shop.product $.tools[0].read_only: a GET tool usually changes nothing: declare \`read_only: true\` (or \`read_only: false\` if this one does)",
        "warning INPUT_NEVER_SENT families/shop/tools.yaml:12 shop.product $.tools[0].input_schema.properties.currency: no template of this http tool references \`currency\`: callers send it and the tool never receives it; use it (\`{{input.currency}}\`) or remove it",
        "warning GOVERNANCE_UNDECLARED families/shop/tools.yaml:13 shop.remove $.tools[1].destructive: a DELETE tool usually deletes: declare \`destructive: true\` with \`consequential: true\` and \`affects\`, or \`destructive: false\`",
        "warning GOVERNANCE_UNDECLARED families/shop/tools.yaml:34 shop.grep_orders $.tools[3].read_only: an exec tool runs a program: declare \`read_only: true\` when it only reads, or \`destructive\`/\`consequential\` when it writes",
        "warning OPTIONAL_INPUT_EMBEDDED families/shop/tools.yaml:37 shop.grep_orders $.tools[3].args[0]: optional \`limit\` is embedded in \`--max-count={{input.limit}}\`: when a caller leaves it out the argument renders with an empty value; give it a \`default\`, make it required, or make it the whole argument",
      ]
    `);
  });

  it("reports an unknown key with the key, the tool and a suggestion", async () => {
    expect(await check("unknown-key")).toMatchInlineSnapshot(`
      [
        "error UNKNOWN_KEY families/demo/tools.yaml:7 demo.sleep $.tools[0].timeout_sec: unknown key \`timeout_sec\` (did you mean \`timeout_secs\`?)",
      ]
    `);
  });

  it("regression (issue #10): one run reports every mistake of a family: an unknown key no longer hides template and schema problems, a broken tool's name still collides, a file that does not parse (with a hint to quote) hides nothing in its neighbours, a typo or an empty description in a family's entry hides none of its tools' problems", async () => {
    expect(await check("many-mistakes")).toMatchInlineSnapshot(`
      [
        "error UNKNOWN_KEY families.yaml:8 - $.families[1].egres: unknown key \`egres\` (did you mean \`egress\`?)",
        "error DESCRIPTION_NOT_ONE_SENTENCE families.yaml:6 - $.families[1].description: the description is empty: say in one sentence what the family does",
        "error YAML_SYNTAX families/weather/alerts.yaml:6 - $: YAML syntax: Nested mappings are not allowed in compact mappings (line 6); a plain value containing ": " (colon and space) reads as a nested key: quote the value (\`description: "Returns: the list"\`), or check the indentation of the line below",
        "error UNKNOWN_KEY families/weather/tools.yaml:7 weather.current $.tools[0].timeout: unknown key \`timeout\`: a http tool takes \`name\`, \`description\`, \`input_schema\`, \`output_schema\`, \`timeout_secs\`, \`tags\`, \`examples\`, \`aliases\`, \`details\`, \`read_only\`, \`destructive\`, \`idempotent\`, \`consequential\`, \`affects\`, \`impact\`, \`audit_args\`, \`deprecated\`, \`result_budget_tokens\`, \`kind\`, \`method\`, \`url\`, \`headers\`, \`query\`, \`body\`, \`defaults\`, \`output\`",
        "error SCHEMA_INVALID families/weather/tools.yaml:10 weather.current $.tools[0].input_schema.requird: unknown keyword \`requird\` (did you mean \`required\`?): it would be ignored, so the schema would not enforce it (vendor keywords start with \`x-\`)",
        "error SCHEMA_INVALID families/weather/tools.yaml:12 weather.current $.tools[0].input_schema.properties.city["such as Paris."]: \`such as Paris.\` is a key with no value: in a YAML flow map \`{…}\` a comma ends the value of \`description\` and starts a new key; quote the value (\`description: "City name, such as Paris."\`)",
        "error TEMPLATE_REFERENCE families/weather/tools.yaml:5 weather.current $.tools[0].url: template \`{{input.unit}}\` references \`unit\`, which is not a property of the input_schema",
        "error UNKNOWN_KEY families/weather/tools.yaml:17 weather.forecast $.tools[1].descripton: unknown key \`descripton\` (did you mean \`description\`?)",
        "error SCHEMA_INVALID families/weather/tools.yaml:19 weather.forecast $.tools[1].input_schema.properties.days.minLenght: unknown keyword \`minLenght\` (did you mean \`minLength\`?): it would be ignored, so the schema would not enforce it (vendor keywords start with \`x-\`)",
        "error SCHEMA_INVALID families/weather/tools.yaml:19 weather.forecast $.tools[1].input_schema.properties.days.type: type \`integr\` is not a JSON Schema type: use one of array, boolean, integer, null, number, object, string (did you mean \`integer\`?)",
        "error MISSING_FIELD families/weather/tools.yaml:20 weather.Current $.tools[2].url: missing required field \`url\`",
        "error NAME_COLLISION families/weather/tools.yaml:20 weather.Current $.tools[2]: \`weather.Current\` collides with \`weather.current\` defined in families/weather/tools.yaml:2 $.tools[0]: names that differ only by case or \`_\`/\`-\`/\`.\` are one tool to the gateway",
        "error FAMILY_LOAD_FAILED families.yaml:4 - $.families[0].source: required family \`weather\` cannot load: families/weather/alerts.yaml does not parse",
        "error INVALID_VALUE families/util/tools.yaml:2 util.nope $.tools[0].handler: \`nope\` is not a builtin handler of this gateway, so every call would fail: use one of \`find\`, \`call\`, \`reshape\`, or another kind (http, mcp, exec, prompt)",
        "error UNDECLARED_VARIABLE families/util/tools.yaml:6 util.fetch $.tools[1].url: \`\${UTIL_URL}\` is not a variable of family \`util\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
      ]
    `);
  });

  it("reports an exec tool's `paths` entry that is not an input property (it would confine nothing)", async () => {
    expect(await check("paths-not-input")).toMatchInlineSnapshot(`
      [
        "error INVALID_VALUE families/demo/tools.yaml:7 demo.read $.tools[0].paths[1]: \`file\` is not a property of input_schema: \`paths\` lists the input properties that are file system paths",
      ]
    `);
  });

  it("reports unknown keys in the family list, and a source that names no known kind", async () => {
    expect(await check("unknown-key-family")).toMatchInlineSnapshot(`
      [
        "error MISSING_FIELD families.yaml:5 - $.families[0].source: a family \`source\` names exactly one of \`tools\`, \`mcp\`, \`jsonl\` (found \`tool\`): did you mean \`tools\`?",
        "error UNKNOWN_KEY families.yaml:4 - $.families[0].requried: unknown key \`requried\` (did you mean \`required\`?)",
      ]
    `);
  });

  it("reports bad family and tool names, including names over 128 characters", async () => {
    expect(await check("bad-name")).toMatchInlineSnapshot(`
      [
        "error BAD_NAME families.yaml:2 - $.families[0].name: family name \`Demo.Tools\` must be lower-case letters, digits, \`-\` or \`_\`, starting with a letter, at most 64 characters",
        "error BAD_NAME families/demo/tools.yaml:2 demo.get weather $.tools[0].name: tool name \`get weather\` must start with a letter and use only letters, digits, \`_\`, \`-\` and \`.\`",
        "error BAD_NAME families/demo/tools.yaml:10 demo.v12345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789abcdefghij $.tools[2].name: full name \`demo.v1234567890123456789012345678901234…\` is 135 characters; at most 128",
      ]
    `);
  });

  it("reports collisions naming both sources, including case/separator-equivalent names", async () => {
    expect(await check("collision")).toMatchInlineSnapshot(`
      [
        "error NAME_COLLISION families/user/b.yaml:2 user.list $.tools[0]: \`user.list\` is defined twice: here and in families/user/a.yaml:3 $.tools[1]",
        "error NAME_COLLISION families/user-get/tools.yaml:2 user-get.Profile $.tools[0]: \`user-get.Profile\` collides with \`user.get.profile\` defined in families/user/a.yaml:2 $.tools[0]: names that differ only by case or \`_\`/\`-\`/\`.\` are one tool to the gateway",
      ]
    `);
  });

  it("reports two tools with one model-safe name, naming both tools and files", async () => {
    expect(await check("model-name-collision")).toMatchInlineSnapshot(`
      [
        "error NAME_COLLISION families/agents/short.yaml:3 agents.summarize_the_quarterly_revenue_report_for_every_22a3ca3b $.tools[0]: \`agents.summarize_the_quarterly_revenue_report_for_every_22a3ca3b\` and \`agents.summarize_the_quarterly_revenue_report_for_every_region_and_product_line\` defined in families/agents/long.yaml:2 $.tools[0] have the same model-safe name \`agents_summarize_the_quarterly_revenue_report_for_every_22a3ca3b\`: rename one (names over 64 characters are shortened to 55 and a hash)",
      ]
    `);
  });

  it("fails a required family that cannot load", async () => {
    const reg = await loadRegistry(fixture("required-family-missing"));
    expect(reg.ok).toBe(false);
    expect(reg.diagnostics.map((d) => `${d.severity} ${d.code} ${d.file}:${d.line} ${d.path}: ${d.message}`)).toMatchInlineSnapshot(`
      [
        "error FAMILY_LOAD_FAILED families.yaml:7 $.families[1].source: required family \`gone\` cannot load: tools folder \`families/gone\`: no such file or folder",
      ]
    `);
  });

  it("skips an optional family that cannot load, with warnings only", async () => {
    const reg = await loadRegistry(fixture("optional-family-skipped"));
    expect(reg.ok).toBe(true);
    expect(reg.skippedFamilies).toEqual(["flaky", "remote"]);
    expect(reg.catalog.families.map((f) => f.name)).toEqual(["demo"]);
    expect(await check("optional-family-skipped")).toMatchInlineSnapshot(`
      [
        "warning YAML_SYNTAX families/flaky/tools.yaml:6 - $: YAML syntax: Map keys must be unique (line 6)",
        "warning FAMILY_SKIPPED families.yaml:8 - $.families[1].source: optional family \`flaky\` skipped: families/flaky/tools.yaml does not parse",
        "warning FILE_UNREADABLE snapshots/remote.json - $: cannot read: no such file or folder",
        "warning FAMILY_SKIPPED families.yaml:12 - $.families[2].source: optional family \`remote\` skipped: snapshots/remote.json: cannot read: no such file or folder",
      ]
    `);
  });

  it("regression (issue #10): MCP snapshots and JSONL catalogs carry other people's schemas: unknown keywords are warnings with their line, a type that cannot compile stays an error", async () => {
    expect(await check("imported-schemas")).toMatchInlineSnapshot(`
      [
        "warning SCHEMA_INVALID snapshots/upstream.json:10 upstream.search $.tools[0].inputSchema.requird: unknown keyword \`requird\` (did you mean \`required\`?): it would be ignored, so the schema would not enforce it (vendor keywords start with \`x-\`)",
        "warning SCHEMA_INVALID snapshots/upstream.json:11 upstream.search $.tools[0].inputSchema.properties.q.descripton: unknown keyword \`descripton\` (did you mean \`description\`?): it would be ignored, so the schema would not enforce it (vendor keywords start with \`x-\`)",
        "warning SCHEMA_INVALID catalogs/catalog.jsonl:1 catalog.lookup $[0].input_schema.properties.id.minLenght: unknown keyword \`minLenght\` (did you mean \`minLength\`?): it would be ignored, so the schema would not enforce it (vendor keywords start with \`x-\`)",
        "error SCHEMA_INVALID catalogs/catalog.jsonl:2 catalog.count $[1].input_schema.properties.limit.type: type \`integr\` is not a JSON Schema type: use one of array, boolean, integer, null, number, object, string (did you mean \`integer\`?)",
      ]
    `);
  });

  it("reports schemas that do not compile and input schemas that are not object schemas", async () => {
    expect(await check("schema-invalid")).toMatchInlineSnapshot(`
      [
        "error SCHEMA_INVALID families/demo/tools.yaml:6 demo.typo $.tools[0].input_schema.properties.x.type: type \`strng\` is not a JSON Schema type: use one of array, boolean, integer, null, number, object, string (did you mean \`string\`?)",
        "error SCHEMA_INVALID families/demo/tools.yaml:11 demo.array-input $.tools[1].input_schema.type: an input_schema must have \`type: "object"\` (tool arguments are an object)",
        "error SCHEMA_INVALID families/demo/tools.yaml:16 demo.bad-pattern $.tools[2].output_schema.pattern: invalid regular expression: Invalid regular expression: /([a-z/u: Unterminated character class",
        "error SCHEMA_INVALID families/demo/tools.yaml:21 demo.dangling-ref $.tools[3].input_schema: does not compile: can't resolve reference #/$defs/missing from id #",
        "error SCHEMA_INVALID families/demo/tools.yaml:26 demo.old-dialect $.tools[4].input_schema.$schema: unsupported $schema "http://json-schema.org/draft-04/schema#": use draft-07 or 2020-12 (the default)",
      ]
    `);
  });

  it("regression (issue #10): hand-written schemas are strict: misspelt keywords, the YAML comma trap, impossible types, required names without a property, unknown formats", async () => {
    expect(await check("schema-strict")).toMatchInlineSnapshot(`
      [
        "error SCHEMA_INVALID families/demo/tools.yaml:6 demo.search $.tools[0].input_schema.requird: unknown keyword \`requird\` (did you mean \`required\`?): it would be ignored, so the schema would not enforce it (vendor keywords start with \`x-\`)",
        "error SCHEMA_INVALID families/demo/tools.yaml:6 demo.search $.tools[0].input_schema.properties.q.descripton: unknown keyword \`descripton\` (did you mean \`description\`?): it would be ignored, so the schema would not enforce it (vendor keywords start with \`x-\`)",
        "error SCHEMA_INVALID families/demo/tools.yaml:6 demo.search $.tools[0].input_schema.properties.q.minLenght: unknown keyword \`minLenght\` (did you mean \`minLength\`?): it would be ignored, so the schema would not enforce it (vendor keywords start with \`x-\`)",
        "error SCHEMA_INVALID families/demo/tools.yaml:13 demo.weather $.tools[1].input_schema.required[1]: \`required\` names \`days\`, which is not in \`properties\`: a required argument needs a declared property",
        "error SCHEMA_INVALID families/demo/tools.yaml:15 demo.weather $.tools[1].input_schema.properties.city["such as Paris."]: \`such as Paris.\` is a key with no value: in a YAML flow map \`{…}\` a comma ends the value of \`description\` and starts a new key; quote the value (\`description: "City name, such as Paris."\`)",
        "error SCHEMA_INVALID families/demo/tools.yaml:16 demo.weather $.tools[1].input_schema.properties.count.type: type \`integr\` is not a JSON Schema type: use one of array, boolean, integer, null, number, object, string (did you mean \`integer\`?)",
        "error SCHEMA_INVALID families/demo/tools.yaml:21 demo.vendor $.tools[2].input_schema.properties.email.format: unknown format \`emial\` (did you mean \`email\`?): the gateway would not check it",
      ]
    `);
  });

  it("reports input properties the gateway refuses in every call (__proto__, constructor, prototype) at any depth", async () => {
    expect(await check("reserved-argument")).toMatchInlineSnapshot(`
      [
        "error SCHEMA_INVALID families/demo/tools.yaml:6 demo.build $.tools[0].input_schema.properties.constructor: \`constructor\` is a reserved argument name: the gateway refuses \`__proto__\`, \`constructor\`, \`prototype\` anywhere in a call's arguments, so rename the property",
        "error SCHEMA_INVALID families/demo/tools.yaml:16 demo.nested $.tools[1].input_schema.properties.__proto__: \`__proto__\` is a reserved argument name: the gateway refuses \`__proto__\`, \`constructor\`, \`prototype\` anywhere in a call's arguments, so rename the property",
        "error SCHEMA_INVALID families/demo/tools.yaml:14 demo.nested $.tools[1].input_schema.properties.options.properties.prototype: \`prototype\` is a reserved argument name: the gateway refuses \`__proto__\`, \`constructor\`, \`prototype\` anywhere in a call's arguments, so rename the property",
        "error SCHEMA_INVALID families/demo/tools.yaml:15 demo.nested $.tools[1].input_schema.properties.list.items.required[0]: \`__proto__\` is a reserved argument name: the gateway refuses \`__proto__\`, \`constructor\`, \`prototype\` anywhere in a call's arguments, so rename the property",
      ]
    `);
  });

  it("reports templates that reference anything but declared input properties", async () => {
    expect(await check("template-reference")).toMatchInlineSnapshot(`
      [
        "error TEMPLATE_REFERENCE families/demo/tools.yaml:5 demo.fetch $.tools[0].url: template \`{{env.HOME}}\` may only reference the input, as \`{{input.name}}\`",
        "error TEMPLATE_REFERENCE families/demo/tools.yaml:6 demo.fetch $.tools[0].body.note: template \`{{input.note}}\` references \`note\`, which is not a property of the input_schema",
        "error TEMPLATE_REFERENCE families/demo/tools.yaml:6 demo.fetch $.tools[0].body.nested[0]: template \`{{ steps.previous.output }}\` may only reference the input, as \`{{input.name}}\`",
        "error TEMPLATE_REFERENCE families/demo/tools.yaml:11 demo.run $.tools[1].command: the command is not templated: \`{{...}}\` is not allowed here",
        "error TEMPLATE_REFERENCE families/demo/tools.yaml:12 demo.run $.tools[1].args[0]: unbalanced \`{{\`/\`}}\` in template",
      ]
    `);
  });

  it("reports literal secrets in headers, env, URLs and MCP family headers", async () => {
    expect(await check("secret-literal")).toMatchInlineSnapshot(`
      [
        "error SECRET_LITERAL families.yaml:12 - $.families[1].source.mcp.headers["X-Api-Key"]: header \`X-Api-Key\` holds a literal credential: write it as a \`\${ENV}\` reference (e.g. \`Bearer \${TOKEN}\`) and set the variable where the gateway runs",
        "error SECRET_LITERAL families/demo/tools.yaml:5 demo.issues $.tools[0].url: query parameter \`api_key\` in the URL holds a literal credential: use a \`\${ENV}\` reference",
        "error SECRET_LITERAL families/demo/tools.yaml:7 demo.issues $.tools[0].headers.Authorization: header \`Authorization\` holds a literal credential: write it as a \`\${ENV}\` reference (e.g. \`Bearer \${TOKEN}\`) and set the variable where the gateway runs",
        "error SECRET_LITERAL families/demo/tools.yaml:15 demo.deploy $.tools[1].env.GITHUB_TOKEN: environment variable \`GITHUB_TOKEN\` holds a literal credential: write it as a \`\${ENV}\` reference (e.g. \`Bearer \${TOKEN}\`) and set the variable where the gateway runs",
      ]
    `);
  });

  it("reports a ${VAR} its family does not declare, in every templated field and in the family's env and MCP endpoint", async () => {
    // Exec args are not among them: no shell expands `${...}` there, so it stays literal text.
    expect(await check("undeclared-variable")).toMatchInlineSnapshot(`
      [
        "error BAD_NAME families.yaml:13 - $.families[1].variables["bad-name"]: variable \`bad-name\` must be letters, digits and \`_\`, not starting with a digit",
        "error TEMPLATE_REFERENCE families.yaml:16 - $.families[1].env.FROM_INPUT: a family's environment is not templated: \`{{...}}\` is not allowed here",
        "error UNDECLARED_VARIABLE families.yaml:15 - $.families[1].env.DEMO_HOME: \`\${HOME}\` is not a variable of family \`broken\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error UNDECLARED_VARIABLE families.yaml:23 - $.families[2].source.mcp.headers.Authorization: \`\${DEMO_TOKEN}\` is not a variable of family \`remote\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error UNDECLARED_VARIABLE families/demo/tools.yaml:5 demo.fetch $.tools[0].url: \`\${DEMO_ULR}\` is not a variable of family \`demo\`: did you mean \`DEMO_URL\`? Otherwise declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error UNDECLARED_VARIABLE families/demo/tools.yaml:6 demo.fetch $.tools[0].headers.Authorization: \`\${TOOLBELT_API_KEY}\` is not a variable of family \`demo\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error UNDECLARED_VARIABLE families/demo/tools.yaml:8 demo.fetch $.tools[0].body.nested[0]: \`\${AWS_SECRET_ACCESS_KEY}\` is not a variable of family \`demo\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error UNDECLARED_VARIABLE families/demo/tools.yaml:16 demo.run $.tools[1].cwd: \`\${HOME}\` is not a variable of family \`demo\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error UNDECLARED_VARIABLE families/demo/tools.yaml:17 demo.run $.tools[1].env.PATH_TOO: \`\${PATH}\` is not a variable of family \`demo\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error UNDECLARED_VARIABLE families/demo/tools.yaml:5 broken.fetch $.tools[0].url: \`\${DEMO_ULR}\` is not a variable of family \`broken\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error UNDECLARED_VARIABLE families/demo/tools.yaml:6 broken.fetch $.tools[0].headers.Authorization: \`\${TOOLBELT_API_KEY}\` is not a variable of family \`broken\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error UNDECLARED_VARIABLE families/demo/tools.yaml:7 broken.fetch $.tools[0].query.key: \`\${DEMO_TOKEN}\` is not a variable of family \`broken\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error UNDECLARED_VARIABLE families/demo/tools.yaml:8 broken.fetch $.tools[0].body.nested[0]: \`\${AWS_SECRET_ACCESS_KEY}\` is not a variable of family \`broken\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error UNDECLARED_VARIABLE families/demo/tools.yaml:16 broken.run $.tools[1].cwd: \`\${HOME}\` is not a variable of family \`broken\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error UNDECLARED_VARIABLE families/demo/tools.yaml:17 broken.run $.tools[1].env.TOKEN: \`\${DEMO_TOKEN}\` is not a variable of family \`broken\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error UNDECLARED_VARIABLE families/demo/tools.yaml:17 broken.run $.tools[1].env.PATH_TOO: \`\${PATH}\` is not a variable of family \`broken\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
      ]
    `);
  });

  it("copies a family's declared variables (names and flags, no values) and merges its env into each exec tool, the tool's winning", async () => {
    const reg = await loadRegistry(fixture("valid"));
    expect(reg.catalog.families.find((f) => f.name === "weather")?.variables).toEqual({
      WEATHER_URL: { secret: false, description: "Base URL of the weather API" },
      WEATHER_API_KEY: { secret: true },
      WEATHER_TOKEN: { secret: true },
    });
    expect(reg.catalog.families.find((f) => f.name === "meta")?.variables).toBeUndefined();
    const log = reg.catalog.tools.find((t) => t.name === "git.log")?.backend;
    expect(log?.kind === "exec" && log.env).toEqual({ GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat" });
  });

  it("reports a consequential tool without affects", async () => {
    expect(await check("consequential-without-affects")).toMatchInlineSnapshot(`
      [
        "error CONSEQUENTIAL_WITHOUT_AFFECTS families/demo/tools.yaml:6 demo.send-email $.tools[0].consequential: a consequential tool must say who it affects: add \`affects: <input property>\` naming a required property of its input_schema",
      ]
    `);
  });

  it("reports affects naming a property the input schema does not require", async () => {
    expect(await check("affects-not-required")).toMatchInlineSnapshot(`
      [
        "error AFFECTS_NOT_REQUIRED families/demo/tools.yaml:7 demo.send-email $.tools[0].affects: \`affects\` names \`to\`, which the input_schema does not list in \`required\`",
        "error AFFECTS_NOT_REQUIRED families/demo/tools.yaml:14 demo.charge $.tools[1].affects: \`affects\` names \`customer\`, which is not a property of the input_schema",
      ]
    `);
  });

  it("reports impact outside its bounds", async () => {
    expect(await check("impact-out-of-bounds")).toMatchInlineSnapshot(`
      [
        "error IMPACT_OUT_OF_BOUNDS families/demo/tools.yaml:7 demo.wipe $.tools[0].impact: impact 1.5 is outside [0, 1]",
        "error IMPACT_OUT_OF_BOUNDS families/demo/tools.yaml:12 demo.nudge $.tools[1].impact: impact -0.1 is outside [0, 1]",
      ]
    `);
  });

  it("reports contradictory governance declarations", async () => {
    expect(await check("contradictory")).toMatchInlineSnapshot(`
      [
        "error CONTRADICTORY_GOVERNANCE families/demo/tools.yaml:8 demo.purge $.tools[0].destructive: read_only contradicts destructive: a tool that changes nothing deletes nothing",
        "error CONTRADICTORY_GOVERNANCE families/demo/tools.yaml:4 demo.purge $.tools[0].method: read_only contradicts method DELETE",
        "error CONTRADICTORY_GOVERNANCE families/demo/tools.yaml:14 demo.notify $.tools[1].consequential: read_only contradicts consequential: a tool that changes nothing affects no one",
        "error CONTRADICTORY_GOVERNANCE families/demo/tools.yaml:16 demo.notify $.tools[1].idempotent: read_only contradicts idempotent: false: reading again has no further effect",
      ]
    `);
  });

  it("reports an unsupported file version", async () => {
    expect(await check("unsupported-version")).toMatchInlineSnapshot(`
      [
        "error UNSUPPORTED_VERSION families/demo/tools.yaml:1 - $.version: format version 7 is not supported: this build reads version 1",
        "error FAMILY_LOAD_FAILED families.yaml:4 - $.families[0].source: required family \`demo\` cannot load: families/demo/tools.yaml has an unsupported format version",
      ]
    `);
  });

  it("reports YAML syntax errors (duplicate keys) with their line", async () => {
    expect(await check("yaml-syntax")).toMatchInlineSnapshot(`
      [
        "error YAML_SYNTAX families/demo/tools.yaml:4 - $: YAML syntax: Map keys must be unique (line 4)",
        "error FAMILY_LOAD_FAILED families.yaml:4 - $.families[0].source: required family \`demo\` cannot load: families/demo/tools.yaml does not parse",
      ]
    `);
  });

  it("reports missing fields and invalid values: the allowed values of a kind or method (with the closest), a number or boolean written in quotes", async () => {
    expect(await check("missing-field")).toMatchInlineSnapshot(`
      [
        "error MISSING_FIELD families/demo/tools.yaml:2 demo.nokind $.tools[0].kind: missing required field \`kind\`",
        "error MISSING_FIELD families/demo/tools.yaml:4 demo.nourl $.tools[1].url: missing required field \`url\`",
        "error INVALID_VALUE families/demo/tools.yaml:8 demo.badkind $.tools[2].kind: \`shell\` is not one of \`http\`, \`mcp\`, \`exec\`, \`builtin\`, \`prompt\`",
        "error INVALID_VALUE families/demo/tools.yaml:12 demo.badmethod $.tools[3].method: \`FETCH\` is not one of \`GET\`, \`POST\`, \`PUT\`, \`PATCH\`, \`DELETE\`",
        "error INVALID_VALUE families/demo/tools.yaml:19 demo.quoted $.tools[4].timeout_secs: expected number, received string: write \`5\` without quotes",
        "error INVALID_VALUE families/demo/tools.yaml:20 demo.quoted $.tools[4].read_only: expected boolean, received string: write \`true\` without quotes",
        "error UNKNOWN_KEY families/demo/tools.yaml:18 demo.quoted $.tools[4].kind_of: unknown key \`kind_of\`: a builtin tool takes \`name\`, \`description\`, \`input_schema\`, \`output_schema\`, \`timeout_secs\`, \`tags\`, \`examples\`, \`aliases\`, \`details\`, \`read_only\`, \`destructive\`, \`idempotent\`, \`consequential\`, \`affects\`, \`impact\`, \`audit_args\`, \`deprecated\`, \`result_budget_tokens\`, \`kind\`, \`handler\`",
      ]
    `);
  });

  it("reports brief references to unknown tools, naming the nearest tool for a misspelt name", async () => {
    expect(await check("brief-unknown-tool")).toMatchInlineSnapshot(`
      [
        "error UNKNOWN_TOOL_REFERENCE briefs/ops.yaml:3 - $.tools[1]: \`demo.ech0\` matches no tool in the registry (did you mean \`demo.echo\`?)",
        "error UNKNOWN_TOOL_REFERENCE briefs/ops.yaml:3 - $.tools[2]: \`deploy.*\` matches no tool in the registry",
      ]
    `);
  });

  it("reports JSONL catalog lines that do not parse, bad names, bad schemas and collisions, with line numbers", async () => {
    expect(await check("jsonl-errors")).toMatchInlineSnapshot(`
      [
        "error JSON_SYNTAX catalogs/tools.jsonl:2 - $[1]: line 2: not JSON: Unterminated string in JSON at position 46",
        "error BAD_NAME catalogs/tools.jsonl:3 imported.123go $[2].name: tool name \`123go\` must start with a letter and use only letters, digits, \`_\`, \`-\` and \`.\`",
        "error SCHEMA_INVALID catalogs/tools.jsonl:4 imported.rate $[3].input_schema.properties.n.exclusiveMinimum: not a valid JSON Schema: exclusiveMinimum must be number",
        "error NAME_COLLISION catalogs/tools.jsonl:5 imported.Search $[4]: \`imported.Search\` collides with \`imported.search\` defined in catalogs/tools.jsonl:1 $[0]: names that differ only by case or \`_\`/\`-\`/\`.\` are one tool to the gateway",
      ]
    `);
  });

  it("bounds search hints (count, length, empty) and warns on a hint repeated within a tool or across tools", async () => {
    expect(await check("search-hints")).toMatchInlineSnapshot(`
      [
        "error SEARCH_HINT_LIMIT families/demo/tools.yaml:7 demo.hex $.tools[0].examples: 9 examples: at most 8; keep the ones a user is most likely to say",
        "warning SEARCH_HINT_DUPLICATE families/demo/tools.yaml:6 demo.hex $.tools[0].aliases[2]: the alias repeats aliases[0]: remove one",
        "error SEARCH_HINT_LIMIT families/demo/tools.yaml:6 demo.hex $.tools[0].aliases[3]: the alias is 58 characters: at most 40",
        "error SEARCH_HINT_LIMIT families/demo/tools.yaml:13 demo.empty $.tools[1].details: the details are 1103 characters: at most 1000; keep what a user might search by",
        "error SEARCH_HINT_LIMIT families/demo/tools.yaml:12 demo.empty $.tools[1].examples[1]: an empty example: remove it",
        "warning SEARCH_HINT_DUPLICATE families/machine/tools.yaml:8 machine.disk $.tools[1].examples[0]: "is the machine running low" is also in examples of \`machine.memory\` (families/machine/tools.yaml:2 $.tools[0]): find cannot tell the two apart by it; keep it on the tool that serves it",
        "warning SEARCH_HINT_DUPLICATE families/machine/tools.yaml:8 machine.disk $.tools[1].aliases[1]: "Storage" is also in aliases of \`machine.memory\` (families/machine/tools.yaml:2 $.tools[0]): find cannot tell the two apart by it; keep it on the tool that serves it",
      ]
    `);
  });

  it("warns on multi-sentence descriptions and refuses empty ones", async () => {
    expect(await check("description-sentences")).toMatchInlineSnapshot(`
      [
        "warning DESCRIPTION_NOT_ONE_SENTENCE families/demo/tools.yaml:2 demo.echo $.tools[0].description: the description has more than one sentence: keep one (details belong in the schema's property descriptions)",
        "error DESCRIPTION_NOT_ONE_SENTENCE families/demo/tools.yaml:4 demo.empty $.tools[2].description: the description is empty: say in one sentence what the tool does",
      ]
    `);
  });

  it("regression (finding 5): refuses http URLs whose scheme, host or port comes from the input (`url: {{input.url}}` passed the check)", async () => {
    const reg = await loadRegistry(fixture("egress"));
    expect(reg.ok).toBe(false);
    expect(reg.diagnostics.filter((d) => d.file !== "families.yaml" && !CONVENTION_CODES.includes(d.code)).map(show)).toMatchInlineSnapshot(`
      [
        "error EGRESS_NOT_DECLARED families/api/tools.yaml:15 api.other $.tools[2].url: the URL's origin \`https://other.example.com\` is not in the family's \`egress\`, which allows \`https://api.example.com\`, \`\${PARTNER_URL}\`: add it there, or point the URL at an allowed origin",
        "error URL_ORIGIN_FROM_INPUT families/api/tools.yaml:19 api.fetch $.tools[3].url: the URL's scheme, host or port (\`{{input.url}}\`) comes from the input, so a caller could send the request anywhere: write the origin literally (\`https://api.example.com\`) or as a \`\${VAR}\` base URL followed by \`/\`, and let the input fill only path segments or query values",
        "error URL_ORIGIN_FROM_INPUT families/api/tools.yaml:24 api.host $.tools[4].url: the URL's scheme, host or port (\`https://{{input.host}}\`) comes from the input, so a caller could send the request anywhere: write the origin literally (\`https://api.example.com\`) or as a \`\${VAR}\` base URL followed by \`/\`, and let the input fill only path segments or query values",
        "error URL_ORIGIN_FROM_INPUT families/api/tools.yaml:29 api.port $.tools[5].url: the URL's scheme, host or port (\`https://api.example.com:{{input.port}}\`) comes from the input, so a caller could send the request anywhere: write the origin literally (\`https://api.example.com\`) or as a \`\${VAR}\` base URL followed by \`/\`, and let the input fill only path segments or query values",
        "error URL_ORIGIN_FROM_INPUT families/api/tools.yaml:34 api.glued $.tools[6].url: the URL's scheme, host or port (\`\${PARTNER_URL}{{input.path}}\`) comes from the input, so a caller could send the request anywhere: write the origin literally (\`https://api.example.com\`) or as a \`\${VAR}\` base URL followed by \`/\`, and let the input fill only path segments or query values",
        "error INVALID_VALUE families/api/tools.yaml:39 api.relative $.tools[7].url: the URL must start with an http(s) origin (\`https://host[:port]\`) or a \`\${VAR}\` base URL: \`/v1/items\` has none",
        "error TEMPLATE_REFERENCE families/api/tools.yaml:43 api.upstream $.tools[8].url: the upstream URL is not templated: \`{{...}}\` is not allowed here",
      ]
    `);
  });

  it("refuses a family `egress` entry that is not a bare origin", async () => {
    expect((await check("egress")).filter((l) => l.includes(" families.yaml"))).toMatchInlineSnapshot(`
      [
        "error UNDECLARED_VARIABLE families.yaml:19 - $.families[1].egress[6]: \`\${HOST}\` is not a variable of family \`loose\`: declare it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)",
        "error EGRESS_NOT_ORIGIN families.yaml:13 - $.families[1].egress[0]: egress entry \`https://files.example.com/downloads\` is not a bare origin: drop everything after \`https://files.example.com\` (an allow-list is scheme, host and port)",
        "error EGRESS_NOT_ORIGIN families.yaml:14 - $.families[1].egress[1]: egress entry \`ftp://files.example.com\` is not an origin: write \`scheme://host[:port]\` with scheme http or https",
        "error EGRESS_NOT_ORIGIN families.yaml:15 - $.families[1].egress[2]: egress entry \`{{input.host}}\` uses \`{{...}}\`: an allow-list cannot depend on the input; write the origin literally or as a \`\${VAR}\`",
        "error EGRESS_NOT_ORIGIN families.yaml:16 - $.families[1].egress[3]: egress entry \`https://user@files.example.com\` carries user information: write only \`scheme://host[:port]\`",
        "error EGRESS_NOT_ORIGIN families.yaml:17 - $.families[1].egress[4]: egress entry \`\${PARTNER_URL}/v2\` is not a bare origin: drop everything after \`\${PARTNER_URL}\` (an allow-list is scheme, host and port)",
        "error EGRESS_NOT_ORIGIN families.yaml:18 - $.families[1].egress[5]: egress entry \`files.example.com\` is not an origin: write \`scheme://host[:port]\` with scheme http or https",
      ]
    `);
  });

  it("projects the family's `egress`, or else the URL's own origin, into each http tool's backend", async () => {
    const reg = await loadRegistry(fixture("egress"));
    const egress = (name: string) => {
      const b = reg.catalog.tools.find((t) => t.name === name)?.backend;
      return b?.kind === "http" ? b.egress : undefined;
    };
    expect([egress("api.get"), egress("api.partner")]).toEqual([
      ["https://api.example.com", "${PARTNER_URL}"],
      ["https://api.example.com", "${PARTNER_URL}"],
    ]);
    expect(reg.catalog.tools.map((t) => t.name)).not.toContain("api.fetch");
    const valid = await loadRegistry(fixture("valid"));
    const weather = valid.catalog.tools.find((t) => t.name === "weather.current")?.backend;
    expect(weather?.kind === "http" && weather.egress).toEqual(["${WEATHER_URL}"]);
  });
});
