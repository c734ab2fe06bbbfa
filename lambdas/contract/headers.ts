// Request headers every route accepts: checked by the app's first middleware, documented on every
// operation of the OpenAPI document from this one definition.
import * as z from "../core/zod-mini.js";
import { described } from "./schema.js";

export const CORRELATION_ID_MAX = 128;
/** Printable ASCII without spaces: UUIDs, W3C trace ids and X-Ray headers fit. */
export const CORRELATION_ID_RE = /^[\x21-\x7E]{1,128}$/;

/** `X-Correlation-Id`: the caller's id for a request, kept in its log and audit records and echoed in the answer. */
export const CorrelationId = described(
  z.string().check(z.minLength(1), z.maxLength(CORRELATION_ID_MAX), z.regex(CORRELATION_ID_RE)),
  `Your id for this request (1 to ${CORRELATION_ID_MAX} printable ASCII characters, no spaces; else 400 INVALID_REQUEST): kept in the gateway's log and audit records and echoed in the X-Correlation-Id response header`,
  ["4bf92f3577b34da6a3ce929d0e0e4736"],
);
