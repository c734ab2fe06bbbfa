// A loopback proxy for fault tests: forwards every request to `target` unless `intercept` answers it
// (or holds or resets it) first, the way a faulty network or upstream would. Bodies are JSON text.
import { type IncomingMessage, request as httpRequest, type ServerResponse } from "node:http";
import { type Loopback, startLoopback } from "../call/helpers.js";

/** `intercept` returns (or resolves to) true when it handled the request itself (answered, held or reset it). */
export function startFaultProxy(
  target: string,
  intercept: (req: IncomingMessage, res: ServerResponse, body: string) => boolean | Promise<boolean>,
): Promise<Loopback> {
  const forward = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? "/", target);
    const out = httpRequest(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => res.destroy());
    out.end(body);
  };
  return startLoopback((req, res, body) => {
    void Promise.resolve(intercept(req, res, body)).then((handled) => handled || forward(req, res, body));
  });
}

/** Forwards every request after `ms`: a table that answers slowly, so a burst queues for the client's pooled sockets. */
export function startSlowProxy(target: string, ms: number): Promise<Loopback> {
  return startFaultProxy(target, () => new Promise((done) => setTimeout(() => done(false), ms)));
}
