import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Timeouts catch hangs, not slowness: bundling and synth take tens of seconds on a loaded 2-core machine.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Integration tests start real servers; two cores do not gain from more workers.
    maxWorkers: 2,
  },
});
