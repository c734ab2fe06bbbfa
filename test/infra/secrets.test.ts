// Runtime secret resolution (lambdas/secrets.ts): names in the environment, values fetched at cold
// start. The SSM path runs the real @aws-sdk/client-ssm against a loopback server that speaks SSM's
// JSON wire protocol (no SSM emulator is installable here), so request signing, the target header
// and error decoding are the SDK's own.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolbeltError } from "../../lambdas/core/errors.js";
import { loadSecretsIntoEnv, parseSecretSpec, resolveSecrets, ssmParameterReader } from "../../lambdas/secrets.js";

const PARAMETERS: Record<string, string> = {
  "/toolbelt/github-token": "ghp_secret_value",
  "/aws/reference/secretsmanager/stripe": "sk_live_value",
};

let server: Server;
let endpoint: string;
const seen: { target: string; name: string; decrypt: boolean }[] = [];

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const target = String(req.headers["x-amz-target"] ?? "");
    const input = JSON.parse(await body(req)) as { Name: string; WithDecryption?: boolean };
    seen.push({ target, name: input.Name, decrypt: input.WithDecryption === true });
    res.setHeader("content-type", "application/x-amz-json-1.1");
    const value = PARAMETERS[input.Name];
    if (target !== "AmazonSSM.GetParameter") {
      res.statusCode = 400;
      res.end(JSON.stringify({ __type: "InvalidAction", message: target }));
    } else if (value === undefined) {
      res.statusCode = 400;
      res.end(JSON.stringify({ __type: "ParameterNotFound", message: "" }));
    } else if (input.Name === "/toolbelt/denied") {
      res.statusCode = 400;
      res.end(JSON.stringify({ __type: "AccessDeniedException", message: "no" }));
    } else {
      res.end(JSON.stringify({ Parameter: { Name: input.Name, Type: "SecureString", Value: value, Version: 1 } }));
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.AWS_ENDPOINT_URL_SSM = endpoint;
  process.env.AWS_ACCESS_KEY_ID = "test";
  process.env.AWS_SECRET_ACCESS_KEY = "test";
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
});

afterAll(async () => {
  delete process.env.AWS_ENDPOINT_URL_SSM;
  await new Promise<void>((r) => server.close(() => r()));
});

describe("parseSecretSpec", () => {
  it("reads a name → parameter object and treats absence as no secrets", () => {
    expect(parseSecretSpec(undefined)).toEqual({});
    expect(parseSecretSpec('{"GITHUB_TOKEN":"/toolbelt/github-token"}')).toEqual({ GITHUB_TOKEN: "/toolbelt/github-token" });
  });

  it("refuses malformed specs with a message naming the variable", () => {
    expect(() => parseSecretSpec("[1]")).toThrow(ToolbeltError);
    expect(() => parseSecretSpec('{"BAD-NAME":"/x"}')).toThrow(/BAD-NAME/);
    expect(() => parseSecretSpec('{"TOKEN":42}')).toThrow(/TOKEN/);
    expect(() => parseSecretSpec("{not json")).toThrow(/not JSON/);
  });
});

describe("resolveSecrets", () => {
  it("reports every missing parameter by name, never a value", async () => {
    const read = async (name: string) => (name === "/a" ? "value-a" : undefined);
    const err = await resolveSecrets({ A: "/a", B: "/b", C: "/c" }, read).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolbeltError);
    expect((err as ToolbeltError).code).toBe("UNAVAILABLE");
    expect((err as ToolbeltError).message).toBe("upstream secrets could not be read: B (/b: ParameterNotFound), C (/c: ParameterNotFound)");
    expect(JSON.stringify((err as ToolbeltError).details)).not.toContain("value-a");
  });
});

describe("loadSecretsIntoEnv with the real SSM client", () => {
  it("puts SSM and Secrets Manager values into the environment, decrypted", async () => {
    const env: Record<string, string | undefined> = {
      AWS_REGION: "us-east-1",
      TOOLBELT_SECRETS: JSON.stringify({ GITHUB_TOKEN: "/toolbelt/github-token", STRIPE_KEY: "/aws/reference/secretsmanager/stripe" }),
    };
    const names = await loadSecretsIntoEnv(env);
    expect(names).toEqual(["GITHUB_TOKEN", "STRIPE_KEY"]);
    expect(env.GITHUB_TOKEN).toBe("ghp_secret_value");
    expect(env.STRIPE_KEY).toBe("sk_live_value");
    expect(seen.filter((s) => s.name === "/toolbelt/github-token")).toEqual([
      { target: "AmazonSSM.GetParameter", name: "/toolbelt/github-token", decrypt: true },
    ]);
  });

  it("leaves variables that are already set alone and makes no call for them", async () => {
    const before = seen.length;
    const env: Record<string, string | undefined> = {
      AWS_REGION: "us-east-1",
      GITHUB_TOKEN: "local",
      TOOLBELT_SECRETS: JSON.stringify({ GITHUB_TOKEN: "/toolbelt/github-token" }),
    };
    expect(await loadSecretsIntoEnv(env)).toEqual([]);
    expect(env.GITHUB_TOKEN).toBe("local");
    expect(seen.length).toBe(before);
  });

  it("fails loudly on a missing parameter and names it", async () => {
    const env: Record<string, string | undefined> = {
      AWS_REGION: "us-east-1",
      TOOLBELT_SECRETS: JSON.stringify({ GITHUB_TOKEN: "/toolbelt/github-token", MISSING: "/toolbelt/missing" }),
    };
    await expect(loadSecretsIntoEnv(env)).rejects.toThrow("MISSING (/toolbelt/missing: ParameterNotFound)");
    expect(env.GITHUB_TOKEN).toBeUndefined();
  });

  it("turns an SSM error other than not-found into a failure with the error's name", async () => {
    PARAMETERS["/toolbelt/denied"] = "never-returned";
    const read = ssmParameterReader({ region: "us-east-1" });
    await expect(resolveSecrets({ DENIED: "/toolbelt/denied" }, read)).rejects.toThrow("DENIED (/toolbelt/denied: AccessDeniedException)");
  });
});
