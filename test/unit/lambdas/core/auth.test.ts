import { describe, expect, it } from "vitest";
import { createPolicy, localPolicyFile, parsePolicy, sha256Hex } from "../../../../lambdas/core/auth.js";
import { testPolicy, TEST_KEYS } from "../../../helpers/api.js";

describe("createPolicy", () => {
  const policy = createPolicy(testPolicy());

  it("authenticates a bearer key by its SHA-256 digest", async () => {
    // Prepare / Act / Assess
    const header = `Bearer ${TEST_KEYS.bob}`;
    const caller = await policy.authenticate(header);
    expect(caller).toMatchObject({ principal: "bob", admin: false });
    expect(await policy.authenticate(`bearer   ${TEST_KEYS.carol}`)).toMatchObject({ principal: "carol", admin: true });
    // One caller per principal: per-caller caches (the surface's granted view) hold across requests.
    expect(await policy.authenticate(header)).toBe(caller);
  });

  it.each([
    [undefined, "missing API key"],
    ["", "missing API key"],
    ["Bearer", "malformed Authorization header"],
    ["Token abc", "malformed Authorization header"],
    ["Bearer a b", "malformed Authorization header"],
    ["Bearer wrong", "unknown API key"],
    [`Bearer ${sha256Hex(TEST_KEYS.alice)}`, "unknown API key"], // the digest itself is not a key
  ])("refuses %j with UNAUTHENTICATED (%s)", async (header, message) => {
    await expect(policy.authenticate(header)).rejects.toThrow(expect.objectContaining({ code: "UNAUTHENTICATED", message: expect.stringContaining(message) }));
  });

  it("grants by allow globs minus deny globs", () => {
    const alice = policy.callerById("alice")!;
    const carol = policy.callerById("carol")!;
    expect(alice.granted("git.log")).toBe(true);
    expect(alice.granted("admin.reset")).toBe(false);
    expect(carol.granted("admin.audit")).toBe(true);
    expect(carol.granted("admin.reset")).toBe(false);
    expect(carol.granted("notes.x")).toBe(true);
    expect(policy.callerById("nobody")).toBeUndefined();
  });

  it("grants the same on every ask, of the catalog's tools (remembered per principal) and of other names", () => {
    // Prepare
    const tools = ["git.log", "admin.reset", "admin.audit", "notes.x"].map((name) => ({ name, governance: {} }));
    const withCatalog = createPolicy(testPolicy(), { tools });
    // Act / Assess: each principal's answers, asked three times, are the policy's without a catalog.
    for (const id of ["alice", "bob", "carol"]) {
      const plain = policy.callerById(id)!;
      const remembered = withCatalog.callerById(id)!;
      for (const name of ["git.log", "admin.reset", "admin.audit", "notes.x", "not.in.catalog", "toolbelt.find"]) {
        for (let i = 0; i < 3; i++) expect(remembered.granted(name), `${id} ${name}`).toBe(plain.granted(name));
      }
    }
  });

  it("grants nothing to a principal without allow globs but the meta-tools find and call", () => {
    const p = createPolicy({ version: 1, principals: [{ id: "empty", keys: [], allow: [], deny: [], admin: false }] });
    const empty = p.callerById("empty")!;
    expect(empty.granted("git.log")).toBe(false);
    expect(empty.granted("toolbelt.reshape")).toBe(false);
    expect(empty.granted("toolbelt.find")).toBe(true);
    expect(empty.granted("toolbelt.call")).toBe(true);
  });

  it("grants the meta-tools whatever the deny globs say (they reach only granted tools)", () => {
    const p = createPolicy({ version: 1, principals: [{ id: "d", keys: [], allow: ["*"], deny: ["toolbelt.*", "*"], admin: false }] });
    const { granted } = p.callerById("d")!;
    expect(["toolbelt.find", "toolbelt.call", "toolbelt.reshape", "git.log"].map(granted)).toEqual([true, true, false, false]);
  });
});

describe("parsePolicy and localPolicyFile", () => {
  it("reads the policy strictly and names the problem", () => {
    expect(parsePolicy(JSON.stringify(testPolicy())).principals).toHaveLength(3);
    expect(() => parsePolicy({ principals: [{ id: "x", keys: ["not-hex"] }] })).toThrow(/principals\.0\.keys\.0/);
    expect(() => parsePolicy({ principals: [{ id: "x", secret: "k" }] })).toThrow(/invalid policy/);
  });

  it("gives the local key every tool", async () => {
    const p = createPolicy(localPolicyFile("dev-key"));
    const local = await p.authenticate("Bearer dev-key");
    expect(local.granted("anything.at_all")).toBe(true);
  });
});
