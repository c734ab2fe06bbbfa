// The one rule npm start and synth share for declared upstream settings.
import { describe, expect, it } from "vitest";
import { type DeclaringFamily, declaredSettings, describeUnset, providedNames, settingsVerdict } from "../../../../registry/contract/upstream-settings.js";

const families: DeclaringFamily[] = [
  { name: "notes", required: true, variables: { API_URL: { secret: false, description: "Base URL." }, API_TOKEN: { secret: true } } },
  { name: "extra", required: false, variables: { API_URL: { secret: false }, EXTRA_KEY: { secret: true, description: "Key." } } },
  { name: "shape", required: true },
];

describe("declared upstream settings", () => {
  it("fails required families and leaves out optional ones that lack a setting, naming each missing one", () => {
    const { failing, leftOut } = settingsVerdict(families, new Set(["API_URL"]));
    expect(failing.map(describeUnset)).toEqual(["family `notes` needs API_TOKEN (a secret)"]);
    expect(leftOut.map(describeUnset)).toEqual(["optional family `extra` needs EXTRA_KEY (a secret: Key)"]);
    expect(settingsVerdict(families, new Set(["API_URL", "API_TOKEN", "EXTRA_KEY"]))).toEqual({ failing: [], leftOut: [] });
  });

  it("counts a blank value as unset (an empty URL reaches nothing)", () => {
    expect([...providedNames({ A: "x", B: "", C: "  ", D: undefined })]).toEqual(["A"]);
  });

  it("lists each setting once with every family that reads it", () => {
    expect(declaredSettings(families)).toEqual([
      { name: "API_TOKEN", secret: true, families: [{ name: "notes", required: true }] },
      {
        name: "API_URL",
        secret: false,
        families: [
          { name: "notes", required: true },
          { name: "extra", required: false },
        ],
      },
      { name: "EXTRA_KEY", secret: true, families: [{ name: "extra", required: false }] },
    ]);
  });
});
