// One line for a failed schema parse, for errors read by operators (policy, briefs, deployment files).
// Structural on purpose: it takes issues from full zod and zod/mini alike and imports neither, so the
// Lambda bundles stay on zod/mini (test/infra/bundle.test.ts).

export type IssueLike = { readonly path: readonly PropertyKey[]; readonly message: string };

/** `path: message` for every issue, `; `-separated; an issue at the top level reads `(root): message`. */
export function describeIssues(issues: readonly IssueLike[]): string {
  return issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ");
}
