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

describe("loadConfig: idempotency window and metrics namespace (#13 operations)", () => {
  it("replays idempotent calls for 24 h unless TOOLBELT_IDEMPOTENCY_TTL_SECS says otherwise", () => {
    expect(loadConfig({}).idempotencyTtlSecs).toBe(86_400);
    expect(loadConfig({ TOOLBELT_IDEMPOTENCY_TTL_SECS: "600" }).idempotencyTtlSecs).toBe(600);
    expect(() => loadConfig({ TOOLBELT_IDEMPOTENCY_TTL_SECS: "0" })).toThrow(/TOOLBELT_IDEMPOTENCY_TTL_SECS must be a positive integer/);
  });

  it("writes metrics to the namespace the construct names, by default none (the writer's Toolbelt)", () => {
    expect(loadConfig({}).metricsNamespace).toBeUndefined();
    expect(loadConfig({ TOOLBELT_METRICS_NAMESPACE: "Toolbelt/staging" }).metricsNamespace).toBe("Toolbelt/staging");
  });
});

describe("loadConfig: the audit store (issue 29)", () => {
  it("stores audit records for 7 days unless told otherwise, and refuses a bad value naming it", () => {
    expect(loadConfig({}).audit).toEqual({ store: true, ttlDays: 7 });
    expect(loadConfig({ TOOLBELT_AUDIT_STORE: "off", TOOLBELT_AUDIT_TTL_DAYS: "30" }).audit).toEqual({ store: false, ttlDays: 30 });
    expect(() => loadConfig({ TOOLBELT_AUDIT_STORE: "yes" })).toThrow(/TOOLBELT_AUDIT_STORE must be on or off, got "yes"/);
    expect(() => loadConfig({ TOOLBELT_AUDIT_TTL_DAYS: "0" })).toThrow(/TOOLBELT_AUDIT_TTL_DAYS must be a positive integer/);
  });
});

describe("loadConfig: health's probes", () => {
  it("keeps a round of probes 30 s unless told otherwise, and refuses a bad value naming it", () => {
    expect(loadConfig({}).healthCacheSecs).toBe(30);
    expect(loadConfig({ TOOLBELT_HEALTH_CACHE_SECS: "5" }).healthCacheSecs).toBe(5);
    expect(() => loadConfig({ TOOLBELT_HEALTH_CACHE_SECS: "0" })).toThrow(/TOOLBELT_HEALTH_CACHE_SECS must be a positive integer/);
  });
});
