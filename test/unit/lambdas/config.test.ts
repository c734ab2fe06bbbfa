// The switches #7 (sandbox) added to the one config parser: exec on/off and the file roots.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../lambdas/config.js";

describe("loadConfig: TOOLBELT_EXEC", () => {
  it("is on unless set to off, and refuses anything else", () => {
    expect(loadConfig({}).exec).toBe(true);
    expect(loadConfig({ TOOLBELT_EXEC: "on" }).exec).toBe(true);
    expect(loadConfig({ TOOLBELT_EXEC: "off" }).exec).toBe(false);
    expect(() => loadConfig({ TOOLBELT_EXEC: "no" })).toThrow(/TOOLBELT_EXEC must be on or off, got "no"/);
  });
});

describe("loadConfig: TOOLBELT_FILE_ROOTS", () => {
  it("is unset (the entry point decides) when absent, none when empty, and a :-separated list otherwise", () => {
    expect(loadConfig({}).fileRoots).toBeUndefined();
    expect(loadConfig({ TOOLBELT_FILE_ROOTS: "" }).fileRoots).toEqual([]);
    expect(loadConfig({ TOOLBELT_FILE_ROOTS: "/srv/repos: /home/ada/project" }).fileRoots).toEqual(["/srv/repos", "/home/ada/project"]);
  });

  it("refuses a relative root (it would depend on the process's working directory)", () => {
    expect(() => loadConfig({ TOOLBELT_FILE_ROOTS: "/srv:repos" })).toThrow(/TOOLBELT_FILE_ROOTS entries must be absolute paths, got "repos"/);
  });
});
