// A failed exec tool's stderr reaches its caller (non-git tools) only with the family's secrets redacted,
// including a secret that the kept tail of stderr cuts in two (regression: its second half was shown).
import { describe, expect, it } from "vitest";
import { createExecBackend } from "../../../lambdas/backends/exec.js";
import { familyViews } from "../../../lambdas/backends/variables.js";
import { createCallGateway } from "../../../lambdas/core/call/gateway.js";
import { callerFor, catalogTool } from "./helpers.js";

const SECRET = "s3cr3t-token-0123456789abcdef";
const caller = callerFor("exec-stderr-test", "vault.*");

/** A `vault` family whose TOKEN is secret, and a tool printing `script` through sh, then failing. */
function gatewayRunning(script: string) {
  const tool = catalogTool("vault.fail", {
    kind: "exec",
    command: "sh",
    args: ["-c", `${script}; exit 3`],
    env: { TOKEN: "${TOKEN}" },
    output: "text",
  });
  const views = familyViews([{ name: "vault", variables: { TOKEN: { secret: true } } } as never], { TOKEN: SECRET });
  return createCallGateway({ tools: new Map([[tool.name, tool]]), backends: { exec: createExecBackend({ env: { PATH: process.env.PATH }, views }) } });
}
const failure = (script: string) =>
  gatewayRunning(script)
    .call({ tool: "vault.fail", args: {} }, caller)
    .then(
      () => {
        throw new Error("the tool should fail");
      },
      (e: { code: string; message: string; details: { stderr?: string } }) => e,
    );

describe("a non-git exec tool's stderr", () => {
  it("keeps its stderr in the message and details, with the secret redacted", async () => {
    const err = await failure('echo "token is $TOKEN" >&2');
    expect(err).toMatchObject({ code: "UPSTREAM_ERROR", details: { exit_code: 3 } });
    expect(err.details.stderr).toContain("token is");
    expect(JSON.stringify({ m: err.message, d: err.details })).not.toContain(SECRET);
  });

  it("redacts a secret the 4 KiB tail cuts in two: no piece of it is shown", async () => {
    // The secret, then 4,086 more bytes: the last 4,096 bytes begin with the secret's last 10 characters.
    const err = await failure(`printf '%s' "$TOKEN" >&2; head -c 4086 /dev/zero | tr '\\0' x >&2`);
    const shown = JSON.stringify({ m: err.message, d: err.details });
    expect(shown).not.toContain(SECRET.slice(-10));
    expect(err.details.stderr).toMatch(/x{4000}$/);
  });
});
