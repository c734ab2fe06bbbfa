// `npm start [-- --registry DIR]`: the local gateway. Builds the artifact if missing or older than the
// registry (registry-choice.ts: which registry, which artifact, never another registry's), runs
// dynalite in-process, the loopback upstreams the example families call (the demo http service in its own process, and
// server-everything over MCP), and serves the same app as the Lambdas on 127.0.0.1:${PORT:-8787}.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { serve } from "@hono/node-server";
import { parse as parseYaml } from "yaml";
import type { BriefFile } from "../../registry/contract/brief.js";
import type { Diagnostic } from "../../registry/contract/diagnostics.js";
import { loadArtifact } from "../artifact.js";
import { loadConfig } from "../config.js";
import { localPolicyFile, parsePolicy } from "../core/auth.js";
import { parseBriefs } from "../core/deployment-files.js";
import { bedrockModel } from "../models/bedrock.js";
import { DECIDER_ROLE, DECIDER_UNSET, unsetRoleWarnings } from "../../registry/contract/model-roles.js";
import { coalescedWriter, jsonLogger, readableLogger } from "../http/logger.js";
import { localOrigins } from "../http/origin.js";
import { createLocalApp } from "./local-app.js";
import { builtAtOf } from "../handlers/wiring-deps.js";
import { gatewayResources } from "../http/routes/oauth-metadata.js";
import { credentialsKeyFile, localKey, localKeyFile } from "./local-key.js";
import { startLocalDynamo } from "./dynalite.js";
import { chooseRegistry } from "./registry-choice.js";
import { servedArtifact } from "./served-families.js";
import { describeUnset, providedNames } from "../../registry/contract/upstream-settings.js";
import { everythingInstalled, startEverything } from "./everything.js";
import { freePort, parsePort, portInUse, portOpen, waitForPort } from "./ports.js";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const root = resolve(import.meta.dirname, "../..");
const say = (line: string) => console.log(`[toolbelt] ${line}`);

/** Build the artifact from the chosen registry (registry-choice.ts says when). */
async function buildArtifact(registryDir: string, dir: string): Promise<void> {
  const { buildRegistryArtifact } = await import("../../build/build.js");
  const result = await buildRegistryArtifact(registryDir, dir);
  if (result.refused) throw new Error(result.refused);
  if (!result.ok) throwOnErrors(result.diagnostics, "the registry build failed");
}

/** Print the first errors (file, tool, JSON path) and throw when the registry compiler reported any. */
function throwOnErrors(diagnostics: readonly Diagnostic[], what: string): void {
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (errors.length === 0) return;
  for (const d of errors.slice(0, 20)) console.error(`  ${d.file}${d.line ? `:${d.line}` : ""}${d.tool ? ` ${d.tool}` : ""} ${d.path}: ${d.code} ${d.message}`);
  throw new Error(`${what} with ${errors.length} error(s); run npm run registry:check for all of them`);
}

/**
 * Briefs from TOOLBELT_BRIEFS go through the Lambdas' reader; the registry's YAML folder goes through
 * the registry compiler's loader (the one the build runs), whose diagnostics name the file, line and
 * path of every problem.
 */
async function loadLocalBriefs(inline: string | undefined, registryDir: string | undefined): Promise<BriefFile[]> {
  if (inline) return parseBriefs(inline, "TOOLBELT_BRIEFS");
  if (!registryDir || !existsSync(join(registryDir, "briefs"))) return [];
  const { loadBriefs } = await import("../../build/load.js");
  const { briefs, diagnostics } = await loadBriefs(registryDir);
  throwOnErrors(diagnostics, `${join(registryDir, "briefs")} failed to load`);
  return briefs.map(({ file: _file, ...brief }) => brief);
}

const DEMO_ENTRY = join(root, "dev/demo-service/main.ts");

/**
 * The demo service in a child process, so a slow demo route (a large prime to factorize) cannot hold
 * up the gateway's event loop. Its environment is its port, its token and PATH: nothing else of ours.
 */
async function startDemoProcess(token: string): Promise<{ url: string; token: string; close(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", DEMO_ENTRY], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", PORT: String(port), DEMO_SERVICE_TOKEN: token },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  try {
    await waitForPort(port, { ms: 60_000, what: "the demo service", gone: () => (child.exitCode !== null ? `exited (${child.exitCode})` : undefined) });
  } catch (err) {
    await close();
    throw err;
  }
  return { url: `http://127.0.0.1:${port}`, token, close };
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const cleanups: (() => unknown)[] = [];

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say("stopping");
    for (const c of cleanups.reverse()) {
      try {
        await c();
      } catch {
        // Best effort: keep stopping the rest.
      }
    }
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));

  try {
    // Before anything starts: a bad PORT or a taken one would otherwise fail after the build and the upstreams.
    // The port is settled first (0: a free one now) because the Origin and Host checks name it.
    const asked = parsePort(config.local.port);
    if (asked !== 0 && (await portOpen(asked))) throw portInUse(asked);
    const port = asked === 0 ? await freePort() : asked;
    // --oauth is ours; every other argument is the registry choice's (which refuses what it does not know).
    const args = process.argv.slice(2);
    const oauth = config.local.oauth || args.includes("--oauth");
    const choice = chooseRegistry({ argv: args.filter((a) => a !== "--oauth"), env: process.env, root });
    say(choice.note);
    if (choice.build && choice.registryDir) {
      say(existsSync(join(choice.artifactDir, "manifest.json")) ? "the registry or the build changed: rebuilding the artifact" : "building the artifact");
      await buildArtifact(choice.registryDir, choice.artifactDir);
    }
    const { registryDir, artifactDir } = choice;
    let artifact = loadArtifact(artifactDir);

    const dataDir = config.local.dataDir ? resolve(config.local.dataDir) : undefined;
    const dynamo = await startLocalDynamo({ table: config.table, ...(dataDir ? { dataDir } : {}) });
    cleanups.push(() => dynamo.close());
    say(`dynalite on ${dynamo.endpoint} (${dataDir ? `data in ${dataDir}` : "in memory"})`);

    // Development fixtures, not part of the gateway, started only for a registry that declares their settings
    // (the example registry does): a copy of the gateway without dev/ still starts.
    const declared = new Set(artifact.families.flatMap((f) => Object.keys(f.variables ?? {})));
    if (declared.has("DEMO_SERVICE_URL") && existsSync(DEMO_ENTRY)) {
      const demo = await startDemoProcess(process.env.DEMO_SERVICE_TOKEN || randomBytes(24).toString("hex"));
      cleanups.push(() => demo.close());
      process.env.DEMO_SERVICE_URL = demo.url;
      process.env.DEMO_SERVICE_TOKEN = demo.token;
      say(`demo http service on ${demo.url} (its own process)`);
    } else if (declared.has("DEMO_SERVICE_URL")) {
      say("dev/demo-service/ not found: the http example families need DEMO_SERVICE_URL");
    }

    if (declared.has("EVERYTHING_MCP_URL") && everythingInstalled()) {
      const everything = await startEverything();
      cleanups.push(() => everything.close());
      process.env.EVERYTHING_MCP_URL = everything.url;
      say(`server-everything (MCP) on ${everything.url}`);
    } else if (declared.has("EVERYTHING_MCP_URL")) {
      say("server-everything is not installed: the mcp example family needs EVERYTHING_MCP_URL");
    }

    // Declared settings (DEMO_SERVICE_*, EVERYTHING_MCP_URL set above): a required family without one stops here.
    const served = await servedArtifact(artifact, providedNames(process.env));
    for (const u of served.leftOut) say(`warning: ${describeUnset(u)}: left out of what is served until set`);
    artifact = served.artifact;

    // An explicit environment beats the registry's file; without either, the local key (random, kept in .toolbelt/).
    let policy;
    const policyYaml = registryDir ? join(registryDir, "policy.yaml") : undefined;
    const apiKey = config.local.apiKey;
    if (config.policyJson) {
      policy = parsePolicy(config.policyJson);
      say("policy from TOOLBELT_POLICY");
    } else if (!apiKey && policyYaml && existsSync(policyYaml)) {
      policy = parsePolicy(parseYaml(readFileSync(policyYaml, "utf8")));
      say(`policy from ${policyYaml}`);
    } else if (apiKey) {
      policy = localPolicyFile(apiKey);
      say("API key: from TOOLBELT_API_KEY");
    } else {
      const local = localKey(root);
      policy = localPolicyFile(local.key);
      say(`API key: ${local.key} (${local.created ? "new, " : ""}kept in ${local.file}; set TOOLBELT_API_KEY to choose one)`);
    }

    if (oauth) {
      // Tokens for this gateway only: its loopback origins and their /mcp, as the resource metadata names them.
      // Loaded only with --oauth: oidc-provider warns at import on Node 20, and a plain start needs none of it.
      const { DEMO_PASSWORD, startLocalOAuth, withLocalIdentity } = await import("./oauth-provider.js");
      const provider = await startLocalOAuth({ resources: gatewayResources([...localOrigins(port), ...config.origins.own]) });
      cleanups.push(() => provider.close());
      policy = withLocalIdentity(policy, provider.issuer);
      say(`OAuth authorization server (oidc-provider) on ${provider.issuer}: MCP clients sign in from the 401 of http://127.0.0.1:${port}/mcp`);
      for (const u of provider.users) say(`  demo user ${u.id} (password ${DEMO_PASSWORD}): ${u.name}`);
    }

    const briefs = await loadLocalBriefs(config.briefsJson, registryDir);
    // The Lambdas' JSON lines on request (TOOLBELT_LOG_FORMAT=json), else one readable line per record.
    // Lines of one event-loop turn go out in one write; what waits is written before the process exits.
    const out = coalescedWriter((text) => process.stdout.write(text));
    process.on("exit", out.flush);
    const logger = config.local.logFormat === "json" ? jsonLogger(out.write) : readableLogger(out.write);
    // The same wiring as the Lambdas: file and git tools reach the project directory unless TOOLBELT_FILE_ROOTS
    // says otherwise, and never the gateway's own files (the data folder, the artifact, the policy, the key).
    const local = createLocalApp({
      config,
      // Templates read `${VAR}` from this environment at call time (DEMO_SERVICE_*, EVERYTHING_MCP_URL set above).
      env: process.env,
      client: dynamo.client,
      artifact,
      ...builtAtOf(artifactDir),
      policy,
      briefs,
      logger,
      models: { bedrock: bedrockModel },
      defaultFileRoots: [root],
      // Per-principal upstream tokens are sealed with a key kept beside the local API key (.toolbelt/, mode 0600).
      credentialsKeyFile: credentialsKeyFile(root),
      internalPaths: [artifactDir, localKeyFile(root), credentialsKeyFile(root), ...(dataDir ? [dataDir] : []), ...(policyYaml ? [policyYaml] : [])],
      port,
    });
    cleanups.push(() => local.close());
    const { models } = local.deps;
    say(models.roles().length ? `model roles: ${models.roles().join(", ")}` : "no model roles configured (TOOLBELT_MODELS)");
    if (!models.get(DECIDER_ROLE)) say(DECIDER_UNSET);
    for (const w of unsetRoleWarnings(artifact.tools, models.roles())) say(`warning: ${w.message}`);
    const fileRoots = local.call.fileRoots ?? [];
    say(
      `file roots: ${fileRoots.join(", ") || "none (file and git tools answer 403)"}${config.fileRoots ? " (TOOLBELT_FILE_ROOTS)" : " (the default: the project directory)"}`,
    );
    if (!config.exec) say("exec tools are off (TOOLBELT_EXEC=off): they answer 501 through every door");
    const { app } = local;

    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port });
    await new Promise<void>((done, fail) => {
      server.once("listening", () => done());
      server.once("error", (e: NodeJS.ErrnoException) => fail(e.code === "EADDRINUSE" ? portInUse(port) : e));
    });
    cleanups.push(
      () =>
        new Promise<void>((done) => {
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          server.close(() => done());
        }),
    );
    const m = artifact.manifest;
    say(
      `registry ${m.registry_hash.slice(0, 12)}: ${m.counts.tools} tools in ${m.counts.families} families; briefs: ${briefs.map((b) => b.name).join(", ") || "none"}`,
    );
    say(`listening on http://127.0.0.1:${port} (Ctrl-C to stop); MCP endpoint: http://127.0.0.1:${port}/mcp (JSON answers, no streaming)`);
    say(
      `browser pages may call from: ${[...localOrigins(port), ...config.origins.own, ...config.origins.allowed].join(", ")} (TOOLBELT_ALLOWED_ORIGINS adds more)`,
    );
  } catch (err) {
    console.error(`[toolbelt] ${(err as Error).message}`);
    await stop(1);
  }
}

await main();
