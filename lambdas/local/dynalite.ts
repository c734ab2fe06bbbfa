// dynalite in-process on a random loopback port, with the Toolbelt table created: the embedded
// DynamoDB of `npm start` and of the tests. In memory unless a data folder is given.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
// dynalite ships no types; it returns a node:http server.
// @ts-expect-error no declaration file
import dynalite from "dynalite";
import { createDynamoClient, DynamoSessionStore, ensureTable } from "../stores/dynamodb.js";

export type LocalDynamo = {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  table: string;
  client: ReturnType<typeof createDynamoClient>;
  store: DynamoSessionStore;
  close(): Promise<void>;
};

/** `port` reuses a port (to restart a stopped dynalite where its clients still point). */
export async function startLocalDynamo(opts: { table?: string; dataDir?: string; port?: number } = {}): Promise<LocalDynamo> {
  const server = (dynalite as (o: object) => Server)({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(opts.dataDir ? { path: opts.dataDir } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const table = opts.table ?? "toolbelt";
  const client = createDynamoClient({ endpoint });
  await ensureTable(client, table);
  return {
    endpoint,
    table,
    client,
    store: new DynamoSessionStore(client, table),
    async close() {
      client.destroy();
      await new Promise<void>((resolve) => {
        (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      });
    },
  };
}
