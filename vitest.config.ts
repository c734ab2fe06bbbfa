import { configDefaults, defineConfig } from "vitest/config";

// Tests that start no server, set no environment and import no handler share their worker's module
// cache (isolate: false): re-importing zod, ajv and the build per file cost three quarters of their time.
const SHARED_MODULES = ["test/unit/**/*.test.ts", "test/fuzz/**/*.test.ts", "test/eval/**/*.test.ts"];
// Files that change process.env or process.stdout, or import a handler (which reads its environment once, at
// import): each gets a fresh process. Every other integration file shares its worker's modules, so a worker
// imports the gateway, the AWS SDK and aws-cdk-lib once, not once per file; test/helpers/shared-process.ts
// fails a shared file that leaves process.env changed, naming this list.
const OWN_PROCESS = [
  "test/integration/api/lambda-handler.test.ts",
  "test/integration/call/lambda-handler.test.ts",
  "test/integration/credentials/kms.test.ts",
  "test/integration/mcp/lambda-handler.test.ts",
  "test/integration/models/bedrock.test.ts",
  "test/integration/parity/parity.test.ts",
  "test/infra/secrets.test.ts",
];

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
      // test/browser (the operator console in Debian's Chromium) runs here too: it starts a gateway on the example
      // registry's build.
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...SHARED_MODULES, ...OWN_PROCESS],
          isolate: false,
          setupFiles: ["test/helpers/shared-process.ts"],
          // Set once here: test/helpers/dynalite.ts sets it at import when missing, which the check above would count.
          env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
          // Builds the example registry once for every file that serves it.
          globalSetup: ["test/helpers/suite-setup.ts"],
        },
      },
      { extends: true, test: { name: "own-process", include: OWN_PROCESS } },
    ],
  },
});
