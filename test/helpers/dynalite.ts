// startDynalite(): a real DynamoDB-compatible server in-process on a random loopback port, with the
// Toolbelt table created. Close it in afterAll.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
// dynalite ships no types; it returns a node:http server.
// @ts-expect-error no declaration file
import dynalite from "dynalite";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { createDynamoClient, DynamoSessionStore, ensureTable } from "../../lambdas/stores/dynamodb.js";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

export type TestDynamo = {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  table: string;
  client: DynamoDBDocumentClient;
  store: DynamoSessionStore;
  close(): Promise<void>;
};

export async function startDynalite(opts: { table?: string; path?: string } = {}): Promise<TestDynamo> {
  const server = (dynalite as (o: object) => Server)({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(opts.path ? { path: opts.path } : {}) });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const table = opts.table ?? "toolbelt-test";
  const client = createDynamoClient({ endpoint });
  await ensureTable(client, table);
  return {
    endpoint,
    table,
    client,
    store: new DynamoSessionStore(client, table),
    async close() {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
