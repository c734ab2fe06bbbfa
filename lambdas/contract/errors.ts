// Every error answer of every route: a stable code (core/errors.ts maps it to the status), a
// message that says what to fix, and details as data.
import { ERROR_STATUS, type ErrorCode } from "../core/errors.js";
import * as z from "../core/zod-mini.js";

export const ErrorBody = z.object({
  error: z.object({
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
