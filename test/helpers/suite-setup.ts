// Global setup of the integration tests: the example registry is built once per run and handed to every
// file (inject("exampleBuilds")), instead of once in each file that serves it.
import type { TestProject } from "vitest/node";
import { buildExampleRegistry } from "./example-registry.js";

export default async function setup(project: TestProject): Promise<void> {
  project.provide("exampleBuilds", await buildExampleRegistry());
}
