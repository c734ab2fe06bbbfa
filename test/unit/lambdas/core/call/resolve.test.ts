import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { editDistance } from "../../../../../registry/contract/edit-distance.js";
import { createNameResolver } from "../../../../../lambdas/core/call/resolve.js";
import { globMatcher } from "../../../../../registry/contract/globs.js";
import { modelName } from "../../../../../registry/contract/names.js";

const NAMES = [
  "git.log",
  "git.diff",
  "git.status",
  "git.commit_changes",
  "notes.create",
  "notes.search",
  "issues.search",
  "admin.reset",
  "admin.audit",
  "everything.get-sum",
];
const resolver = createNameResolver(NAMES);
const all = () => true;
const grant = (...globs: string[]) => globMatcher(globs);

describe("editDistance", () => {
  it("counts insertions, deletions, substitutions and adjacent transpositions as one edit", () => {
    expect(editDistance("status", "status", 2)).toBe(0);
    expect(editDistance("status", "statsu", 2)).toBe(1);
    expect(editDistance("status", "stats", 2)).toBe(1);
    expect(editDistance("status", "staTus", 2)).toBe(1);
    expect(editDistance("status", "sttaus", 2)).toBe(1);
    expect(editDistance("kitten", "sitting", 5)).toBe(3);
  });

  it("property: the banded distance equals the plain OSA distance whenever it is within the bound", () => {
    const osa = (a: string, b: string) => {
      const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
      for (let i = 1; i <= a.length; i++)
        for (let j = 1; j <= b.length; j++) {
          d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
          if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
        }
      return d[a.length]![b.length]!;
    };
    const word = fc.string({ unit: fc.constantFrom("a", "b", "c", "_"), maxLength: 12 });
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 4 }), (a, b, max) => {
        const want = osa(a, b);
        expect(editDistance(a, b, max)).toBe(want <= max ? want : max + 1);
      }),
      { numRuns: 2000 },
    );
  });

  it("stops early past the bound", () => {
    expect(editDistance("abcdefgh", "zzzzzzzz", 2)).toBe(3);
    expect(editDistance("a", "abcdefgh", 2)).toBe(3);
  });
});

describe("name resolution", () => {
  it("calls an exact granted name exactly", () => {
    expect(resolver.resolve("git.log", all)).toEqual({ status: "exact", name: "git.log" });
  });

  it("refuses the exact name of an ungranted tool as not granted", () => {
    expect(resolver.resolve("admin.reset", grant("git.*"))).toEqual({ status: "not_granted", name: "admin.reset" });
  });

  it("calls a model-safe name (`git_commit_changes`) as an exact name, not a near-miss", () => {
    expect(resolver.resolve("git_log", all)).toEqual({ status: "exact", name: "git.log" });
    expect(resolver.resolve("everything_get-sum", all)).toEqual({ status: "exact", name: "everything.get-sum" });
    expect(resolver.resolve("git_commit_changes", all)).toEqual({ status: "exact", name: "git.commit_changes" });
    expect(resolver.resolve("admin_reset", grant("git.*"))).toEqual({ status: "not_granted", name: "admin.reset" });
  });

  it("calls a shortened model-safe name (over 64 characters) as its tool, by the names it was given", () => {
    const long = `reports.${"summarize_every_region_".repeat(4)}`;
    const given = createNameResolver([long, "git.log"], (i) => (i === 0 ? "reports_short_form" : "git_log"));
    expect(given.resolve("reports_short_form", all)).toEqual({ status: "exact", name: long });
    expect(createNameResolver([long]).resolve(modelName(long), all)).toEqual({ status: "exact", name: long });
    expect(modelName(long)).toMatch(/^reports_summarize_every_region_[a-z_]+_[0-9a-f]{8}$/);
    expect(modelName(long)).toHaveLength(64);
  });

  it("resolves case differences", () => {
    expect(resolver.resolve("Git.Log", all)).toEqual({ status: "resolved", name: "git.log", rule: "case" });
  });

  it("resolves `_`, `-` and `.` separators", () => {
    expect(resolver.resolve("git_commit-changes", all)).toEqual({ status: "resolved", name: "git.commit_changes", rule: "separators" });
    expect(resolver.resolve("everything.get_sum", all)).toEqual({ status: "resolved", name: "everything.get-sum", rule: "separators" });
  });

  it("resolves a missing family prefix when one granted tool has that verb", () => {
    expect(resolver.resolve("status", all)).toEqual({ status: "resolved", name: "git.status", rule: "family_prefix" });
    expect(resolver.resolve("get_sum", all)).toEqual({ status: "resolved", name: "everything.get-sum", rule: "family_prefix" });
  });

  it("resolves a missing prefix among the granted tools only", () => {
    // notes.search and issues.search share the verb; only one is granted.
    expect(resolver.resolve("search", grant("notes.*"))).toEqual({ status: "resolved", name: "notes.search", rule: "family_prefix" });
  });

  it("answers an ambiguous missing prefix with the candidates as suggestions", () => {
    const r = resolver.resolve("search", all);
    expect(r.status).toBe("ambiguous");
    expect(r.status === "ambiguous" && r.suggestions.slice(0, 2)).toEqual(["issues.search", "notes.search"]);
  });

  it("resolves a small typo (one edit for short names, two for longer)", () => {
    expect(resolver.resolve("git.stauts", all)).toEqual({ status: "resolved", name: "git.status", rule: "typo" });
    expect(resolver.resolve("git.comit_chnges", all)).toEqual({ status: "resolved", name: "git.commit_changes", rule: "typo" });
    expect(resolver.resolve("notes.craete", all)).toEqual({ status: "resolved", name: "notes.create", rule: "typo" });
  });

  it("does not stretch a short name by two edits", () => {
    expect(resolver.resolve("git.lgo", all)).toMatchObject({ status: "resolved", name: "git.log" });
    expect(resolver.resolve("gt.lg", all).status).not.toBe("resolved");
  });

  it("answers an ambiguous typo with suggestions instead of guessing", () => {
    // A typo of a verb that two granted families share.
    const r = resolver.resolve("serach", all);
    expect(r.status).toBe("ambiguous");
    expect(r.status !== "exact" && r.status !== "resolved" && r.status !== "not_granted" && r.suggestions).toEqual(
      expect.arrayContaining(["issues.search", "notes.search"]),
    );
  });

  it("never resolves a near-miss to an ungranted tool, nor names it in suggestions", () => {
    const bob = grant("git.*");
    for (const name of ["Admin.Reset", "admin-reset", "reset", "admin.rest", "admn.reset", "ADMIN_RESET", "audit", "admin.audti"]) {
      const r = resolver.resolve(name, bob);
      expect(r.status, name).toBe("not_found");
      expect(JSON.stringify(r), name).not.toMatch(/admin/);
    }
  });

  it("never redirects the spelling of an ungranted tool to a different granted tool", () => {
    const names = ["admin.delete_user", "admin.delete_users"];
    const r = createNameResolver(names).resolve("Admin.Delete_User", grant("admin.delete_users"));
    expect(r).toEqual({ status: "not_found", suggestions: ["admin.delete_users"] });
  });

  it("never redirects the exact verb of an ungranted tool to another granted tool (bug: `show` ran diagnostics.slow)", () => {
    const r = createNameResolver(["git.show", "git.log", "diagnostics.slow"]);
    const diag = grant("diagnostics.*");
    for (const name of ["show", "Show", "SHOW"]) {
      const got = r.resolve(name, diag);
      // Not found, without naming git.show; the granted near name is only a suggestion.
      expect(got, name).toEqual({ status: "not_found", suggestions: ["diagnostics.slow"] });
    }
    // With the verb granted it resolves as before, and a typo nearer the granted tool still does.
    expect(r.resolve("show", grant("*"))).toEqual({ status: "resolved", name: "git.show", rule: "family_prefix" });
    expect(r.resolve("slw", diag)).toEqual({ status: "resolved", name: "diagnostics.slow", rule: "typo" });
  });

  it("never resolves a typo that is as near an ungranted tool as a granted one", () => {
    const r = createNameResolver(["git.show", "diagnostics.slow"]);
    // `sow` is one edit from both verbs: the caller may have meant git.show.
    expect(r.resolve("sow", grant("diagnostics.*"))).toEqual({ status: "not_found", suggestions: ["diagnostics.slow"] });
    expect(r.resolve("sow", grant("*"))).toMatchObject({ status: "ambiguous" });
    expect(r.resolve("sow", grant("git.*"))).toEqual({ status: "not_found", suggestions: ["git.show"] });
  });

  it("suggests at most five granted tools for an unknown name", () => {
    const r = resolver.resolve("git.push", all);
    expect(r.status).toBe("not_found");
    if (r.status === "not_found") {
      expect(r.suggestions.length).toBeGreaterThan(0);
      expect(r.suggestions.length).toBeLessThanOrEqual(5);
      expect(r.suggestions.every((s) => s.startsWith("git."))).toBe(true);
    }
  });

  it("property: whatever the name and grants, the resolver never yields or suggests an ungranted tool", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom(...NAMES).map((n) => n.toUpperCase()),
          fc.string({ maxLength: 30 }),
          fc.constantFrom(...NAMES),
        ),
        fc.subarray(NAMES),
        (name, grantedList) => {
          const granted = (n: string) => grantedList.includes(n);
          const r = resolver.resolve(name, granted);
          if (r.status === "exact" || r.status === "resolved") expect(granted(r.name)).toBe(true);
          if (r.status === "ambiguous" || r.status === "not_found") expect(r.suggestions.every(granted)).toBe(true);
          if (r.status === "not_granted") expect(r.name).toBe(name);
        },
      ),
      { numRuns: 500 },
    );
  });
});
