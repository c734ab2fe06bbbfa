// Your registry, your artifact (issue #10): `npm start` and `build:artifact` rebuild only an artifact
// built from the registry they serve, and never overwrite another registry's artifact or other files.
// Real directories and the real build; `npm start` itself is exercised in api/local-start.test.ts.
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILT_FROM_FILE, inspectArtifactDir } from "../../../build/artifact-dir.js";
import { buildRegistryArtifact } from "../../../build/build.js";
import { chooseRegistry, defaultArtifactDir } from "../../../lambdas/local/registry-choice.js";
import { fixture } from "../../unit/build/helpers.js";

const root = resolve(import.meta.dirname, "../../..");
const valid = fixture("valid");
let work = "";
let users = ""; // an artifact the user built from their own registry, elsewhere

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "toolbelt-own-artifact-"));
  users = join(work, "users-artifact");
  expect((await buildRegistryArtifact(valid, users)).ok).toBe(true);
});

describe("artifact ownership", () => {
  it("records the registry beside the artifact, outside the files that are deployed", () => {
    expect(existsSync(join(users, BUILT_FROM_FILE))).toBe(true);
    expect(inspectArtifactDir(users, valid)).toEqual({ kind: "ours" });
    expect(inspectArtifactDir(users, join(root, "registry")).kind).toBe("foreign");
  });

  it("regression (issue #10): npm start with TOOLBELT_ARTIFACT_DIR at a user's artifact serves it as built instead of overwriting it with registry/", () => {
    const before = statSync(join(users, "manifest.json")).mtimeMs;
    const choice = chooseRegistry({ argv: [], env: { TOOLBELT_ARTIFACT_DIR: users }, root });
    expect(choice).toMatchObject({ artifactDir: users, build: false, registryDir: valid });
    expect(choice.note).toContain("as it is");
    expect(statSync(join(users, "manifest.json")).mtimeMs).toBe(before);
  });

  it("serves an artifact with no record of its registry (copied from elsewhere) as it is", () => {
    const copied = join(work, "copied");
    mkdirSync(copied);
    writeFileSync(join(copied, "manifest.json"), "{}");
    expect(chooseRegistry({ argv: [], env: { TOOLBELT_ARTIFACT_DIR: copied }, root })).toMatchObject({ build: false, artifactDir: copied });
  });

  it("refuses to build a named registry over another registry's artifact or over other files", async () => {
    expect(() => chooseRegistry({ argv: ["--registry", join(root, "registry")], env: { TOOLBELT_ARTIFACT_DIR: users }, root })).toThrow(
      /built from .*valid: it is not overwritten/,
    );
    const notes = join(work, "notes");
    mkdirSync(notes);
    writeFileSync(join(notes, "todo.txt"), "mine");
    expect(() => chooseRegistry({ argv: [], env: { TOOLBELT_REGISTRY: valid, TOOLBELT_ARTIFACT_DIR: notes }, root })).toThrow(
      /holds files that are not an artifact/,
    );
    const refused = await buildRegistryArtifact(join(root, "registry"), users);
    expect(refused.refused).toMatch(/holds an artifact built from .*valid: it is not overwritten/);
    expect((await buildRegistryArtifact(join(root, "registry"), notes)).refused).toMatch(/not empty and holds no artifact/);
  });

  it("builds each named registry into a directory of its own, and rebuilds only when that registry changed", () => {
    const own = chooseRegistry({ argv: ["--registry", valid], env: {}, root });
    expect(own.artifactDir).toBe(defaultArtifactDir(root, valid));
    expect(own.artifactDir).not.toBe(join(root, "dist", "artifact"));
    // Pure: this test must not read the checkout's own dist/ (it failed in a copy of the tree).
    expect(defaultArtifactDir(root, join(root, "registry"))).toBe(join(root, "dist", "artifact"));
    expect(chooseRegistry({ argv: [], env: { TOOLBELT_REGISTRY: valid, TOOLBELT_ARTIFACT_DIR: users }, root })).toMatchObject({
      build: false,
      registryDir: valid,
    });
  });

  it("regression: rebuilds an artifact older than the build's own code or word data, or the contract it encodes with (a pull that changes them rebuilds it)", async () => {
    // Prepare: a project root whose build/ holds one file, and an artifact built from the valid registry just now.
    const project = join(work, "project");
    mkdirSync(join(project, "build", "data"), { recursive: true });
    const data = join(project, "build", "data", "actions.json");
    writeFileSync(data, "{}");
    const built = join(work, "built-now");
    expect((await buildRegistryArtifact(valid, built)).ok).toBe(true);
    const manifest = statSync(join(built, "manifest.json")).mtimeMs / 1000;
    const choose = () => chooseRegistry({ argv: ["--registry", valid], env: { TOOLBELT_ARTIFACT_DIR: built }, root: project }).build;
    // Act and assess: the build's file older than the artifact, then newer.
    utimesSync(data, manifest - 60, manifest - 60);
    expect(choose()).toBe(false);
    utimesSync(data, manifest + 60, manifest + 60);
    expect(choose()).toBe(true);
    // The shared contract the build encodes with (registry/contract/) counts too.
    utimesSync(data, manifest - 60, manifest - 60);
    mkdirSync(join(project, "registry", "contract"), { recursive: true });
    const contract = join(project, "registry", "contract", "search-options.ts");
    writeFileSync(contract, "");
    utimesSync(contract, manifest + 60, manifest + 60);
    expect(choose()).toBe(true);
  });

  it("regression: a checkout moved or renamed (or a CI cache restored elsewhere) still owns its artifact", async () => {
    const clone = join(work, "clone");
    cpSync(valid, join(clone, "registry"), { recursive: true });
    expect((await buildRegistryArtifact(join(clone, "registry"), join(clone, "dist", "artifact"))).ok).toBe(true);
    const moved = join(work, "clone-moved");
    renameSync(clone, moved);
    expect(inspectArtifactDir(join(moved, "dist", "artifact"), join(moved, "registry"))).toEqual({ kind: "ours" });
    expect(chooseRegistry({ argv: [], env: {}, root: moved })).toMatchObject({
      artifactDir: join(moved, "dist", "artifact"),
      registryDir: join(moved, "registry"),
    });
    // Another registry's artifact is still refused, and the refusal names the command that fixes it.
    expect((await buildRegistryArtifact(join(root, "registry"), join(moved, "dist", "artifact"))).refused).toMatch(/npm run build:artifact -- --force/);
  });

  it("says what is wrong with a --registry that is not a registry, and refuses unknown arguments", () => {
    expect(() => chooseRegistry({ argv: ["--registry", work], env: {}, root })).toThrow(/is not a registry: it has no families.yaml/);
    expect(() => chooseRegistry({ argv: ["--registy", valid], env: {}, root })).toThrow(/registy/);
  });
});
