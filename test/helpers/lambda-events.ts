// API Gateway HTTP API (payload v2) events and a Lambda context, to invoke handlers as API Gateway does.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { randomUUID } from "node:crypto";

export type V2EventInput = {
  method: string;
  /** Path with an optional query string, e.g. `/v1/find?x=1`. */
  path: string;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else is JSON-encoded (with content-type application/json). */
  body?: unknown;
  base64?: boolean;
};

export function httpApiV2Event(input: V2EventInput): APIGatewayProxyEventV2 {
  const [rawPath = "/", rawQueryString = ""] = input.path.split("?", 2);
  const headers: Record<string, string> = { host: "api.example.test", ...lower(input.headers ?? {}) };
  let body: string | undefined;
  if (input.body !== undefined) {
    body = typeof input.body === "string" ? input.body : JSON.stringify(input.body);
    if (typeof input.body !== "string") headers["content-type"] ??= "application/json";
  }
  const queryStringParameters = rawQueryString ? Object.fromEntries([...new URLSearchParams(rawQueryString)].map(([k, v]) => [k, v])) : undefined;
  const requestId = randomUUID();
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath,
    rawQueryString,
    headers,
    ...(queryStringParameters ? { queryStringParameters } : {}),
    requestContext: {
      accountId: "123456789012",
      apiId: "api",
      domainName: headers.host!,
      domainPrefix: "api",
      http: { method: input.method, path: rawPath, protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "test" },
      requestId,
      routeKey: "$default",
      stage: "$default",
      time: new Date(0).toISOString(),
      timeEpoch: 0,
    },
    ...(body !== undefined ? { body: input.base64 ? Buffer.from(body).toString("base64") : body } : {}),
    isBase64Encoded: Boolean(input.base64 && body !== undefined),
  };
}

export function lambdaContext(name = "toolbelt-api"): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${name}`,
    memoryLimitInMB: "512",
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: "test",
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function lower(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

export type LambdaHandler = (event: unknown, context: unknown) => Promise<APIGatewayProxyStructuredResultV2>;

/** fetch as API Gateway delivers it to a function: one v2 event per request, the result back as a Response. */
export function lambdaFetch(handler: LambdaHandler, name = "toolbelt"): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => (headers[k] = v));
    const body = request.method === "POST" ? await request.text() : undefined;
    const event = httpApiV2Event({ method: request.method, path: url.pathname + url.search, headers, ...(body !== undefined ? { body } : {}) });
    const out = await handler(event, { ...lambdaContext(name), getRemainingTimeInMillis: () => 28_000 });
    const text = out.isBase64Encoded ? Buffer.from(out.body ?? "", "base64") : (out.body ?? "");
    const status = out.statusCode ?? 200;
    // Only the null-body statuses (fetch spec): a 202 carries a body (a call held for approval).
    return new Response([101, 204, 205, 304].includes(status) ? null : text, { status, headers: out.headers as Record<string, string> });
  };
}
