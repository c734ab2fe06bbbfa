// Governance selectors (lambdas/core/governance.ts): what a selector chooses, and the policy and briefs
// they become once loaded with the catalog (the grant checks then see only names).
import { describe, expect, it } from "vitest";
import type { PolicyFile } from "../../../../registry/contract/policy.js";
import { createPolicy } from "../../../../lambdas/core/auth.js";
import { expandBriefSelector, selects } from "../../../../lambdas/core/governance.js";

const tools = [
  { name: "notes.search", governance: { read_only: true } },
  { name: "notes.create", governance: {} },
  { name: "notes.delete", governance: { destructive: true } },
  { name: "mail.send", governance: { consequential: true, affects: "to" } },
];
const principal = (id: string, extra: Partial<PolicyFile["principals"][number]> = {}) => ({ id, keys: [], allow: [], deny: [], admin: false, ...extra });

describe("governance selectors", () => {
  it("take an absent declaration as false and need every given field", () => {
    expect(tools.filter((t) => selects({ destructive: false }, t.governance)).map((t) => t.name)).toEqual(["notes.search", "notes.create", "mail.send"]);
    expect(tools.filter((t) => selects({ read_only: true }, t.governance)).map((t) => t.name)).toEqual(["notes.search"]);
    expect(tools.filter((t) => selects({ affects: true, consequential: true }, t.governance)).map((t) => t.name)).toEqual(["mail.send"]);
    expect(tools.filter((t) => selects({}, t.governance))).toHaveLength(4);
  });

  it("become the grants of the principals that use them, and read_only refuses every tool not declaring it", () => {
    const policy = createPolicy(
      {
        version: 1,
        principals: [
          principal("reader", { allow: ["*"], read_only: true }),
          principal("safe", { allow_where: [{ destructive: false }], deny_where: [{ consequential: true }] }),
        ],
      },
      { tools },
    );
    const granted = (id: string) => tools.map((t) => t.name).filter((n) => policy.callerById(id)!.granted(n));
    expect(granted("reader")).toEqual(["notes.search"]);
    expect(granted("safe")).toEqual(["notes.search", "notes.create"]);
    // The meta-tools stay granted: they reach only granted tools.
    expect(policy.callerById("reader")!.granted("toolbelt.call")).toBe(true);
  });

  it("refuse to load without the catalog rather than grant by names alone", () => {
    const file: PolicyFile = { version: 1, principals: [principal("reader", { allow: ["*"], read_only: true })] };
    expect(() => createPolicy(file)).toThrow(/selects tools by governance/);
  });

  it("turn a brief's where into the names it chooses, and a brief choosing none into an empty belt", () => {
    const brief = { version: 1, name: "tidy", description: "d", tools: ["notes.*"] };
    expect(expandBriefSelector({ ...brief, where: { destructive: false } }, tools).tools).toEqual(["notes.search", "notes.create"]);
    expect(expandBriefSelector({ ...brief, where: { affects: true } }, tools).tools).toEqual(["-"]);
    expect(expandBriefSelector(brief, tools)).toBe(brief);
  });
});
