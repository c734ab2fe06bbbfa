import { describe, expect, it } from "vitest";
import { createPolicy, localPolicyFile, parsePolicy, sha256Hex } from "../../../lambdas/core/auth.js";
import { testPolicy, TEST_KEYS } from "../../helpers/api.js";

describe("createPolicy", () => {
  const policy = createPolicy(testPolicy());

  it("authenticates a bearer key by its SHA-256 digest", () => {
    // Prepare / Act / Assess
    const header = `Bearer ${TEST_KEYS.bob}`;
    const principal = policy.authenticate(header);
    expect(principal.id).toBe("bob");
    expect(policy.authenticate(`bearer   ${TEST_KEYS.carol}`).id).toBe("carol");
  });

  it.each([
    [undefined, "missing API key"],
    ["", "missing API key"],
    ["Bearer", "malformed Authorization header"],
    ["Token abc", "malformed Authorization header"],
    ["Bearer a b", "malformed Authorization header"],
    ["Bearer wrong", "unknown API key"],
    [`Bearer ${sha256Hex(TEST_KEYS.alice)}`, "unknown API key"], // the digest itself is not a key
  ])("refuses %j with UNAUTHENTICATED (%s)", (header, message) => {
    expect(() => policy.authenticate(header)).toThrow(expect.objectContaining({ code: "UNAUTHENTICATED", message: expect.stringContaining(message) }));
  });

  it("grants by allow globs minus deny globs", () => {
    const alice = policy.principalById("alice")!;
    const carol = policy.principalById("carol")!;
    expect(policy.isGranted(alice, "git.log")).toBe(true);
    expect(policy.isGranted(alice, "admin.reset")).toBe(false);
    expect(policy.isGranted(carol, "admin.audit")).toBe(true);
    expect(policy.isGranted(carol, "admin.reset")).toBe(false);
    expect(policy.grantsFor(carol)("notes.x")).toBe(true);
    expect(policy.principalById("nobody")).toBeUndefined();
  });

  it("grants nothing to a principal without allow globs", () => {
    const p = createPolicy({ version: 1, principals: [{ id: "empty", keys: [], allow: [], deny: [], admin: false }] });
    expect(p.isGranted(p.principalById("empty")!, "git.log")).toBe(false);
  });
});

describe("parsePolicy and localPolicyFile", () => {
  it("reads the policy strictly and names the problem", () => {
    expect(parsePolicy(JSON.stringify(testPolicy())).principals).toHaveLength(3);
    expect(() => parsePolicy({ principals: [{ id: "x", keys: ["not-hex"] }] })).toThrow(/principals\.0\.keys\.0/);
    expect(() => parsePolicy({ principals: [{ id: "x", secret: "k" }] })).toThrow(/invalid policy/);
  });

  it("gives the local key every tool", () => {
    const p = createPolicy(localPolicyFile("dev-key"));
    const local = p.authenticate("Bearer dev-key");
    expect(p.isGranted(local, "anything.at_all")).toBe(true);
  });
});
