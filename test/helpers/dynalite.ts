// startDynalite(): a real DynamoDB-compatible server in-process on a random loopback port, with the
// Toolbelt table created (the same code `npm start` uses). Close it in afterAll.
import { startLocalDynamo, type LocalDynamo } from "../../lambdas/local/dynalite.js";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

export type TestDynamo = LocalDynamo;

export function startDynalite(opts: { table?: string; dataDir?: string; port?: number } = {}): Promise<TestDynamo> {
  return startLocalDynamo({
    table: opts.table ?? "toolbelt-test",
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...(opts.port ? { port: opts.port } : {}),
  });
}
