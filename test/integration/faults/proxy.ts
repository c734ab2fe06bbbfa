// A loopback proxy for fault tests: forwards every request to `target` unless `intercept` answers it
// (or holds or resets it) first, the way a faulty network or upstream would. Bodies are JSON text.
import { type IncomingMessage, request as httpRequest, type ServerResponse } from "node:http";
import { type Loopback, startLoopback } from "../call/helpers.js";

/** `intercept` returns true when it handled the request itself (answered, held or reset it). */
export function startFaultProxy(target: string, intercept: (req: IncomingMessage, res: ServerResponse, body: string) => boolean): Promise<Loopback> {
  return startLoopback((req, res, body) => {
    if (intercept(req, res, body)) return;
    const url = new URL(req.url ?? "/", target);
    const out = httpRequest(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => res.destroy());
    out.end(body);
  });
}
