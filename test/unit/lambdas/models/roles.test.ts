// TOOLBELT_MODELS parsing and the models registry: every problem names the role and the field.
import { describe, expect, it } from "vitest";
import { createModels } from "../../../../lambdas/models/index.js";
import { parseModelRoles, timeoutOf } from "../../../../lambdas/models/roles.js";
import { loadConfig } from "../../../../lambdas/config.js";

describe("parseModelRoles", () => {
  it("reads roles of both providers, unset is none", () => {
    expect(parseModelRoles(undefined)).toEqual({});
    const roles = parseModelRoles(
      JSON.stringify({
        decider: { provider: "openai", url: "https://models.example.com/v1", model: "small", key_env: "DECIDER_KEY" },
        prompt: { provider: "bedrock", model: "anthropic.claude-3-haiku-20240307-v1:0", region: "eu-west-1" },
      }),
    );
    expect(Object.keys(roles)).toEqual(["decider", "prompt"]);
    expect(timeoutOf("decider", roles.decider!)).toBe(4_000);
    expect(timeoutOf("prompt", roles.prompt!)).toBe(30_000);
  });

  it("names every bad role and field in one error", () => {
    const bad = JSON.stringify({
      decider: { provider: "openai", model: "m", timeout_ms: 20_000, url: "http://x/v1" },
      prompt: { provider: "openai", model: "m", url: "ftp://x" },
      fast: { provider: "gemini", model: "m" },
      slow: { provider: "bedrock", model: "m", temperature: 1 },
      "bad role": { provider: "bedrock", model: "m" },
    });
    expect(() => parseModelRoles(bad)).toThrowErrorMatchingInlineSnapshot(
      `[Error: TOOLBELT_MODELS: role "decider": timeout_ms must be at most 8000 (find answers inside the api function's 10 s); role "prompt": url must be an http(s) URL; role "fast": provider must be "openai" or "bedrock"; role "slow": Unrecognized key: "temperature"; role "bad role": a role name is letters, digits, _ and - (starting with a letter)]`,
    );
  });

  it("is read once by loadConfig, inline or from a file, and a bad value stops the start", () => {
    expect(loadConfig({}).models).toEqual({});
    expect(() => loadConfig({ TOOLBELT_MODELS: '{"prompt": {"provider": "openai", "model": "m"}}' })).toThrow('role "prompt": url');
  });
});

describe("createModels", () => {
  it("refuses a role whose key variable is unset, naming both", () => {
    const roles = parseModelRoles(JSON.stringify({ prompt: { provider: "openai", url: "http://127.0.0.1:9/v1", model: "m", key_env: "PROMPT_KEY" } }));
    expect(() => createModels(roles, {})).toThrow('role "prompt": key_env names PROMPT_KEY, which is not set');
    const models = createModels(roles, { PROMPT_KEY: "k-123" });
    expect(models.roles()).toEqual(["prompt"]);
    expect(models.get("prompt")).toMatchObject({ role: "prompt", provider: "openai", model: "m", timeoutMs: 30_000 });
    expect(models.get("decider")).toBeUndefined();
    expect(models.get("constructor")).toBeUndefined();
  });
});
