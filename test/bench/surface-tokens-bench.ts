// npx tsx test/bench/surface-tokens-bench.ts
// What counting the surface answer exactly would cost the request path: computeSurface as served (the
// principal's view cached, as sessions.ts does) against the same plus gpt-tokenizer's count of the answer's
// tools+manifest JSON, for the example registry's code-review session; and the tokenizer's load, in a fresh
// process, beside a bare `node -e ""` (this machine's floor).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { compileRegistry } from "../../build/build.js";
import { countTokens } from "../../build/tokens.js";
import { artifactFromFiles } from "../../lambdas/artifact.js";
import { DEFAULT_SURFACE_BOUNDS } from "../../lambdas/config.js";
import { computeSurface, grantedView } from "../../lambdas/core/surface.js";
import { BriefFile } from "../../registry/contract/brief.js";
import { globMatcher } from "../../registry/contract/globs.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const brief = BriefFile.parse(parseYaml(readFileSync(`${ROOT}registry/briefs/code-review.yaml`, "utf8")));
const artifact = artifactFromFiles((await compileRegistry(`${ROOT}registry`)).files!);
const granted = () => true;
const input = {
  artifact,
  view: grantedView(artifact, granted),
  granted,
  isAlwaysLoaded: globMatcher(artifact.manifest.always_loaded),
  declared: brief.tools,
  pins: [],
  bounds: DEFAULT_SURFACE_BOUNDS,
};
const exact = () => {
  const s = computeSurface(input);
  return countTokens(JSON.stringify({ tools: s.tools, manifest: s.manifest }));
};

/** Mean µs of `fn` over `n` runs after `n / 10` warm-up runs. */
function micros(fn: () => unknown, n = 3000): number {
  for (let i = 0; i < n / 10; i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  return ((performance.now() - t0) * 1000) / n;
}

/** Median ms of a fresh Node process running `code`. */
function processMs(code: string, runs = 5): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: ROOT });
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

const s = computeSurface(input);
const before = micros(() => computeSurface(input));
const after = micros(exact);
const floor = processMs("");
const load = processMs('const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base"); countTokens("{}");');
console.log(`reported o200k_tokens ${s.size.surface.o200k_tokens}, answer's tools+manifest JSON ${exact()} tokens`);
console.log(`per request: computeSurface ${before.toFixed(0)} µs, with an exact count ${after.toFixed(0)} µs (+${(after - before).toFixed(0)} µs)`);
console.log(`cold start: node -e "" ${floor.toFixed(0)} ms, + loading gpt-tokenizer o200k ${load.toFixed(0)} ms (${(load / floor).toFixed(1)}x the floor)`);
