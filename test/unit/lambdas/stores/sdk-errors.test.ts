import { describe, expect, it } from "vitest";
import { translateSdkError } from "../../../../lambdas/stores/sdk-errors.js";
import { ToolbeltError } from "../../../../lambdas/core/errors.js";

const sdkError = (name: string) => Object.assign(new Error("sdk said no"), { name });

describe("SDK errors become domain errors (bug: the miss log answered throttling with a 500)", () => {
  it("maps throttling to UNAVAILABLE (503) for every store", () => {
    for (const store of ["session store", "miss log"]) {
      const e = translateSdkError(sdkError("ThrottlingException"), store, "record");
      expect(e.code).toBe("UNAVAILABLE");
      expect(e.status).toBe(503);
      expect(e.message).toBe(`${store} is throttling; retry shortly`);
    }
  });

  it("maps an unreachable or failing table to UNAVAILABLE (503): refused or reset connections, timeouts, DynamoDB 5xx", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    const failing = Object.assign(sdkError("SomethingNew"), { $metadata: { httpStatusCode: 503 } });
    for (const cause of [refused, sdkError("TimeoutError"), sdkError("InternalServerError"), failing]) {
      const e = translateSdkError(cause, "session store", "get");
      expect([e.code, e.status, e.message]).toEqual(["UNAVAILABLE", 503, "session store is unavailable; retry shortly"]);
      expect((e as Error).cause).toBe(cause);
    }
  });

  it("maps anything else to INTERNAL with the SDK error kept as the cause, never in the message", () => {
    const cause = sdkError("ValidationException");
    const e = translateSdkError(cause, "miss log", "top");
    expect(e.code).toBe("INTERNAL");
    expect(e.message).toBe("miss log top failed");
    expect(e.details).toEqual({ operation: "top" });
    expect((e as Error).cause).toBe(cause);
  });

  it("passes domain errors through unchanged", () => {
    const own = new ToolbeltError("CONFLICT", "session changed concurrently");
    expect(translateSdkError(own, "session store", "update")).toBe(own);
  });
});
