import { configDefaults, defineConfig } from "vitest/config";

// Tests that start no server, set no environment and import no handler share their worker's module
// cache (isolate: false): re-importing zod, ajv and the build per file cost three quarters of their time.
const SHARED_MODULES = ["test/unit/**/*.test.ts", "test/fuzz/**/*.test.ts", "test/eval/**/*.test.ts"];

export default defineConfig({
  test: {
    // Timeouts catch hangs, not slowness: bundling and synth take tens of seconds on a loaded 2-core machine.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Integration tests start real servers; two cores do not gain from more workers. Forks, not threads:
    // tests spawn processes and send signals, and a fork's process.env is its own.
    pool: "forks",
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "unit", include: SHARED_MODULES, isolate: false } },
      // Handlers read their environment once, at import: each of these files gets fresh modules. test/browser (the
      // operator console in Debian's Chromium) runs here too: it starts a gateway on the example registry's build.
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...SHARED_MODULES],
          // Builds the example registry once for every file that serves it.
          globalSetup: ["test/helpers/suite-setup.ts"],
        },
      },
    ],
  },
});
