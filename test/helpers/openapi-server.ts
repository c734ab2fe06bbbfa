// A real HTTP server on 127.0.0.1 built from an OpenAPI document: it routes by the document's paths and
// methods, enforces its security requirements, required parameters and required bodies, and answers
// with what it received (JSON, or text where the document promises text), so a test sees what a tool sent.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const METHODS = ["get", "put", "post", "delete", "patch"];

export type Received = { operation: string; path: Obj; query: Record<string, string[]>; headers: Record<string, string>; body: unknown };
export type OpenApiServer = { url: string; requests: Received[]; close(): Promise<void> };

/** Local `$ref`s only (`#/components/...`); what the server needs of parameters and bodies. */
function deref(doc: Obj, v: unknown): unknown {
  if (!isObj(v) || typeof v.$ref !== "string") return v;
  let at: unknown = doc;
  for (const seg of v.$ref.slice(2).split("/")) at = isObj(at) ? at[seg.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
  return deref(doc, at);
}

type Route = { method: string; re: RegExp; names: string[]; id: string; op: Obj; params: Obj[] };

function routes(doc: Obj): Route[] {
  const out: Route[] = [];
  for (const [path, item] of Object.entries(isObj(doc.paths) ? doc.paths : {})) {
    if (!isObj(item)) continue;
    const names: string[] = [];
    const re = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{([^}]+)\}/g, (_, n: string) => (names.push(n), "([^/]+)"))}$`);
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      const params = [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(op.parameters) ? op.parameters : [])]
        .map((p) => deref(doc, p))
        .filter(isObj);
      out.push({
        method: method.toUpperCase(),
        re,
        names,
        id: typeof op.operationId === "string" ? op.operationId : `${method.toUpperCase()} ${path}`,
        op,
        params,
      });
    }
  }
  // Literal segments win over templated ones (`/notes/search` before `/notes/{id}`), as servers route.
  return out.sort((a, b) => a.names.length - b.names.length);
}

/**
 * `credentials` maps a security scheme's name to the value the server accepts (a bearer token, an API key).
 * `basePath` is the path part of the document's server URL that requests start with.
 */
export async function startOpenApiServer(doc: Obj, credentials: Record<string, string>, basePath = ""): Promise<OpenApiServer> {
  const table = routes(doc);
  const schemes = isObj(doc.components) && isObj(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const send = (status: number, body: unknown, type = "application/json") => {
        res.writeHead(status, { "content-type": type });
        res.end(type === "application/json" ? JSON.stringify(body) : String(body));
      };
      const url = new URL(req.url ?? "/", "http://x");
      if (!url.pathname.startsWith(basePath)) return send(404, { error: `not under ${basePath}` });
      const path = url.pathname.slice(basePath.length);
      const route = table.find((r) => r.method === req.method && r.re.test(path));
      if (!route) return send(404, { error: `no operation for ${req.method} ${path}` });
      const security = Array.isArray(route.op.security) ? route.op.security : Array.isArray(doc.security) ? doc.security : [];
      const satisfied = (reqmt: unknown) =>
        isObj(reqmt) &&
        Object.keys(reqmt).every((name) => {
          const s = schemes[name];
          const want = credentials[name];
          if (!isObj(s) || want === undefined) return false;
          if (s.type === "apiKey" && s.in === "query") return url.searchParams.get(String(s.name)) === want;
          if (s.type === "apiKey" && s.in === "header") return req.headers[String(s.name).toLowerCase()] === want;
          return req.headers.authorization === `Bearer ${want}`;
        });
      if (security.length > 0 && !security.some(satisfied)) return send(401, { error: "missing or wrong credentials" });
      const match = route.re.exec(path)!;
      const received: Received = {
        operation: route.id,
        path: Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)])),
        query: {},
        headers: {},
        body: null,
      };
      for (const p of route.params) {
        const name = String(p.name);
        const value = p.in === "query" ? url.searchParams.getAll(name) : p.in === "header" ? req.headers[name.toLowerCase()] : undefined;
        const present = Array.isArray(value) ? value.length > 0 : value !== undefined;
        if (p.required === true && p.in !== "path" && !present) return send(400, { error: `missing ${String(p.in)} parameter ${name}` });
        if (p.in === "query" && present) received.query[name] = value as string[];
        if (p.in === "header" && typeof value === "string") received.headers[name] = value;
      }
      const text = Buffer.concat(chunks).toString("utf8");
      const rb = deref(doc, route.op.requestBody);
      if (isObj(rb) && rb.required === true && text === "") return send(400, { error: "missing request body" });
      if (text !== "") {
        received.headers["content-type"] = String(req.headers["content-type"]);
        received.body = JSON.parse(text);
      }
      requests.push(received);
      const responses = isObj(route.op.responses) ? route.op.responses : {};
      const code = Object.keys(responses).find((k) => /^2/.test(k)) ?? "200";
      const content = isObj(responses[code]) ? (responses[code] as Obj).content : undefined;
      if (code === "204") return res.writeHead(204).end();
      if (isObj(content) && !Object.keys(content).some((k) => k.includes("json"))) return send(Number(code), `ok ${route.id}`, Object.keys(content)[0]);
      send(Number(code), received);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
