// `npm run misses` against a running gateway (the admin route) and directly against the table: through
// its run(argv, io) in this process, and once as a child process (exit status and stderr).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as misses } from "../../../lambdas/local/misses.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { DynamoMissStore } from "../../../lambdas/stores/misses.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../helpers/api.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";

const spawn = promisify(execFile);
let dynamo: TestDynamo;
let api: TestApi;
let calls: CallModule;

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await misses(args, { out: (s) => (stdout += s), err: (s) => (stderr += s), env: { ...process.env, ...env } });
  return { code, stdout, stderr };
}
const spawnCli = (args: string[]) => spawn(process.execPath, ["--import", "tsx", "lambdas/local/misses.ts", ...args]);

beforeAll(async () => {
  dynamo = await startDynalite({ table: "toolbelt-misses-cli" });
  calls = createCallModule({ env: {}, misses: new DynamoMissStore(dynamo.client, dynamo.table) });
  api = await startTestApi({ dynamo, extraRoutes: [calls] });
  for (const tool of ["git.lgo", "Git.Log", "deploy"]) await api.request("/v1/call", { as: "alice", json: { tool, args: {} } });
});

afterAll(async () => {
  await api?.close();
  await calls?.close();
  await dynamo?.close();
});

describe("npm run misses", () => {
  it("prints the most frequent misses from the running gateway", async () => {
    const { code, stdout } = await cli(["--url", api.url, "--key", TEST_KEYS.carol]);
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^count\s+names tried\s+outcome\s+last principal\s+last at$/);
    expect(lines.slice(1).map((l) => l.trim().split(/\s+/).slice(0, 3))).toEqual(
      expect.arrayContaining([
        ["1", "git.lgo", "→"],
        ["1", "Git.Log", "→"],
        ["1", "deploy", "not_found"],
      ]),
    );
  });

  it("reads the table directly with --direct", async () => {
    const { code, stdout, stderr } = await cli(["--direct", "--json"], { TOOLBELT_TABLE: dynamo.table, DYNAMODB_ENDPOINT: dynamo.endpoint });
    expect(code, stderr).toBe(0);
    const { misses } = JSON.parse(stdout) as { misses: { canonical: string; resolved_to?: string }[] };
    expect(misses.map((m) => m.canonical).sort()).toEqual(["deploy", "git_lgo", "git_log"]);
  });

  it("says why when the key is not an admin's, as a process: exit status 1 and the reason on stderr", async () => {
    await expect(spawnCli(["--url", api.url, "--key", TEST_KEYS.alice])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("403") });
  });
});
