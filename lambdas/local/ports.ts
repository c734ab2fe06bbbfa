// Loopback ports for the local server's child processes and the tests that start real upstreams.
import { connect, createServer, type AddressInfo } from "node:net";

const LOOPBACK = "127.0.0.1";

/** `PORT` as npm start takes it: 8787 when unset, 0 for any free port. */
export function parsePort(value: string | undefined): number {
  const text = value?.trim() || "8787";
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new Error(`PORT must be a port number from 0 to 65535 (0: any free port), got ${JSON.stringify(value)}`);
  return port;
}

/** The refusal of a port something already listens on, naming the way out. */
export const portInUse = (port: number): Error =>
  new Error(`port ${port} on ${LOOPBACK} is in use (another npm start?): stop what listens there, or set PORT to a free port`);

/** A port that was free on loopback a moment ago (for children that take their port from the environment). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, LOOPBACK, () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => done(port));
    });
  });
}

/** Whether something accepts TCP connections on the loopback port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const sock = connect(port, LOOPBACK, () => (sock.end(), done(true)));
    sock.once("error", () => done(false));
  });
}

/**
 * Polls until the port accepts connections. `gone` is asked between tries: a child that has
 * exited will never listen, so its reason ends the wait at once.
 */
export async function waitForPort(port: number, opts: { ms?: number; what?: string; gone?: () => string | undefined } = {}): Promise<void> {
  const { ms = 15_000, what = "the server" } = opts;
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const reason = opts.gone?.();
    if (reason) throw new Error(`${what} ${reason}`);
    if (await portOpen(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not listen on port ${port} within ${ms} ms`);
}
