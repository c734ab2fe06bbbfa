// The credentials key: created only when a family declares `credentials: per_principal`, rotated, and
// usable (GenerateDataKey, Decrypt, with the toolbelt encryption context only) by exactly the functions
// that call tools, which learn it as TOOLBELT_CREDENTIALS_KMS_KEY; the api function gets neither.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Template } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestArtifact, testArtifactInput } from "../helpers/artifact.js";
import { callableTestTools, removeOutdirs, synthStack } from "./stack-fixture.js";

const dirs: string[] = [];
let withCredentials: Template;
let without: Template;

async function artifact(perPrincipal: boolean): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-infra-credentials-"));
  dirs.push(dir);
  const input = testArtifactInput(callableTestTools());
  if (perPrincipal) input.families[1]!.credentials = { per_principal: { header: "Authorization", scheme: "Bearer" } };
  await buildTestArtifact(dir, input);
  return dir;
}

/** Each function's environment and the KMS statements of its role, by the function's description. */
function functions(t: Template): { description: string; env: Record<string, unknown>; kms: Record<string, unknown>[] }[] {
  const roles = t.findResources("AWS::IAM::Policy");
  return Object.values(t.findResources("AWS::Lambda::Function")).map((f) => {
    const props = f.Properties as { Description: string; Role: { "Fn::GetAtt": [string] }; Environment: { Variables: Record<string, unknown> } };
    const role = props.Role["Fn::GetAtt"][0];
    const statements = Object.values(roles)
      .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Record<string, unknown>[]);
    const kms = statements.filter((s) => JSON.stringify(s.Action).includes("kms:GenerateDataKey"));
    return { description: props.Description, env: props.Environment.Variables, kms };
  });
}

beforeAll(async () => {
  withCredentials = synthStack({ artifactDir: await artifact(true) }).template;
  without = synthStack({ artifactDir: await artifact(false) }).template;
});

afterAll(async () => {
  await removeOutdirs();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe("credentials key", () => {
  it("is created, with rotation, only when a family declares per-principal credentials", () => {
    withCredentials.resourceCountIs("AWS::KMS::Key", 1);
    withCredentials.hasResourceProperties("AWS::KMS::Key", { EnableKeyRotation: true });
    without.resourceCountIs("AWS::KMS::Key", 0);
    for (const f of functions(without)) expect(f.env).not.toHaveProperty("TOOLBELT_CREDENTIALS_KMS_KEY");
  });

  it("is granted to the functions that call tools, with the toolbelt encryption context only, and named in their environment", () => {
    const keyId = Object.keys(withCredentials.findResources("AWS::KMS::Key"))[0];
    const fns = functions(withCredentials);
    const dispatching = fns.filter((f) => /call gateway|MCP endpoint/.test(f.description));
    expect(dispatching).toHaveLength(2);
    for (const f of dispatching) {
      expect(f.env.TOOLBELT_CREDENTIALS_KMS_KEY, f.description).toEqual({ "Fn::GetAtt": [keyId, "Arn"] });
      expect(f.kms, f.description).toEqual([
        expect.objectContaining({
          Action: ["kms:GenerateDataKey", "kms:Decrypt"],
          Effect: "Allow",
          Condition: {
            "ForAllValues:StringEquals": { "kms:EncryptionContextKeys": ["toolbelt:principal", "toolbelt:family"] },
            Null: { "kms:EncryptionContext:toolbelt:principal": "false" },
          },
        }),
      ]);
    }
    for (const f of fns.filter((f) => !dispatching.includes(f))) {
      expect(f.env, f.description).not.toHaveProperty("TOOLBELT_CREDENTIALS_KMS_KEY");
      expect(f.kms, f.description).toEqual([]);
    }
  });
});
