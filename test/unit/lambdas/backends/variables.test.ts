// What a family's tools see of the gateway: declared variables only, a minimal exec base, and the
// values that are redacted from every answer.
import { describe, expect, it } from "vitest";
import { renderString, Secrets } from "../../../../lambdas/backends/templates.js";
import { EXEC_HOME, execBaseEnv, familyViews } from "../../../../lambdas/backends/variables.js";

const gateway = {
  PATH: "/opt/bin:/usr/bin",
  HOME: "/home/gateway",
  LANG: "C.UTF-8",
  LC_ALL: "C",
  LC_TIME: "en_GB.UTF-8",
  TZ: "Europe/Lisbon",
  TOOLBELT_API_KEY: "gateway-key-123",
  AWS_SESSION_TOKEN: "aws-session-456",
  NOTES_URL: "http://notes.local",
  NOTES_TOKEN: "notes-token-789",
  OTHER_TOKEN: "other-token-012",
  TOOLBELT_SECRETS: JSON.stringify({ SSM_TOKEN: "/p" }),
  SSM_TOKEN: "ssm-token-345",
};

describe("execBaseEnv", () => {
  it("keeps PATH, LANG, LC_* and TZ of the gateway and sets HOME to a fixed directory that does not exist", () => {
    expect(execBaseEnv(gateway)).toEqual({
      PATH: "/opt/bin:/usr/bin",
      HOME: EXEC_HOME,
      LANG: "C.UTF-8",
      LC_ALL: "C",
      LC_TIME: "en_GB.UTF-8",
      TZ: "Europe/Lisbon",
    });
  });

  it("gives a usual PATH when the gateway has none", () => {
    expect(execBaseEnv({})).toEqual({ PATH: "/usr/local/bin:/usr/bin:/bin", HOME: EXEC_HOME });
  });
});

describe("familyViews", () => {
  const views = familyViews(
    [
      { name: "notes", variables: { NOTES_URL: { secret: false }, NOTES_TOKEN: { secret: true }, NOTES_UNSET: { secret: false } } },
      { name: "other", variables: { OTHER_TOKEN: { secret: true }, constructor: { secret: false } } },
      { name: "plain" },
    ],
    gateway,
    ["SSM_TOKEN"],
  );

  it("shows a family its declared variables only (a declared but unset one as undefined)", () => {
    expect({ ...views("notes").env }).toEqual({ NOTES_URL: "http://notes.local", NOTES_TOKEN: "notes-token-789", NOTES_UNSET: undefined });
    expect(Object.keys(views("plain").env)).toEqual([]);
    expect(Object.keys(views("not-in-the-artifact").env)).toEqual([]);
  });

  it("has no inherited names: `constructor` is a declared variable or nothing", () => {
    expect(views("notes").env.constructor).toBeUndefined();
    expect(Object.hasOwn(views("other").env, "constructor")).toBe(true);
    expect(views("other").env.constructor).toBeUndefined();
  });

  it("a template reads another family's variable as undeclared, its own unset one as unset", () => {
    const ctx = (family: string) => ({ input: {}, env: views(family).env, secrets: new Secrets(), tool: `${family}.t` });
    expect(() => renderString("${NOTES_TOKEN}", ctx("other"))).toThrow("reads the variable NOTES_TOKEN, which its family does not declare");
    expect(() => renderString("${NOTES_UNSET}", ctx("notes"))).toThrow("needs the environment variable NOTES_UNSET, which is not set");
  });

  it("redacts every family's declared secrets, SSM-loaded values and the gateway's credentials, for every family", () => {
    const secrets = new Secrets(views("plain").secrets);
    const text = "notes-token-789 other-token-012 ssm-token-345 gateway-key-123 aws-session-456 http://notes.local";
    expect(secrets.redact(text)).toBe("[redacted] [redacted] [redacted] [redacted] [redacted] http://notes.local");
  });
});
