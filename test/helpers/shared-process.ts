// Setup of the integration files that share their worker's process (vitest.config.ts): each file must leave
// process.env as it found it, or the next file in the same worker would run in another environment.
import { afterAll, expect } from "vitest";

// Taken when this setup runs, before the test file is imported: a change made at import counts too.
const before: Record<string, string | undefined> = { ...process.env };

afterAll(() => {
  expect({ ...process.env }, "this file changes process.env: restore it in afterAll, or list the file in OWN_PROCESS in vitest.config.ts").toEqual(before);
});
