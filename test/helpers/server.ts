// serveApp(): a real listening server on 127.0.0.1 port 0 for a Hono app (the local server's adapter).
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import type { Hono } from "hono";

export type TestServer = { url: string; close(): Promise<void> };

// Hono<any> because route modules carry different env types; the server only needs `fetch`.
// biome-ignore lint/suspicious/noExplicitAny: any route module's app, whatever its env type.
export async function serveApp(app: Hono<any>, port = 0): Promise<TestServer> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}
