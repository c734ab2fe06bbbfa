// The Node.js runtimes AWS Lambda offers and the dates it stops them, from the runtime table of the
// Lambda developer guide ("Lambda runtimes", read 2026-12-02). A test fails when the default runtime's
// create block is less than six months away, so the default moves before a first deploy would fail.
import * as lambda from "aws-cdk-lib/aws-lambda";

export type RuntimeDates = {
  /** Deprecation: no more security patches. */
  deprecated: string;
  /** From this day CloudFormation cannot create a function on the runtime. */
  createBlocked: string;
  /** From this day a function on the runtime cannot be updated. */
  updateBlocked: string;
};

export const NODE_RUNTIME_DATES: Readonly<Record<string, RuntimeDates>> = {
  "nodejs20.x": { deprecated: "2026-04-30", createBlocked: "2026-08-31", updateBlocked: "2026-09-30" },
  "nodejs22.x": { deprecated: "2027-04-30", createBlocked: "2027-06-01", updateBlocked: "2027-07-01" },
  "nodejs24.x": { deprecated: "2028-04-30", createBlocked: "2028-06-01", updateBlocked: "2028-07-01" },
};

/** The supported runtime with the longest runway; the bundles are tested on its Node major (test/infra/runtime.test.ts). */
export const DEFAULT_RUNTIME = lambda.Runtime.NODEJS_24_X;
