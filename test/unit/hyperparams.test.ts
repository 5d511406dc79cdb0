import { describe, expect, it } from "vitest";
import type { ParamSpec } from "../../contract/catalog.schema.js";
import { type HyperparamResult, type ParamIssue, validateHyperparams } from "../../contract/hyperparams.js";

const SPECS: Record<string, ParamSpec> = {
  lr: { type: "float", default: 0.001, min: 0, max: 1, doc: "" },
  epochs: { type: "int", default: 3, min: 1, max: 100, doc: "" },
  shuffle: { type: "bool", default: true, doc: "" },
  optimizer: { type: "string", default: "adam", choices: ["adam", "sgd"], doc: "" },
};

function values(r: HyperparamResult): Record<string, string | number | boolean> {
  if (!r.ok) throw new Error(`expected ok, got issues: ${JSON.stringify(r.issues)}`);
  return r.values;
}

function issues(r: HyperparamResult): ParamIssue[] {
  if (r.ok) throw new Error(`expected issues, got values: ${JSON.stringify(r.values)}`);
  return r.issues;
}

function onlyIssue(r: HyperparamResult, key: string): string {
  const list = issues(r);
  expect(list.map((i) => i.key)).toEqual([key]);
  return list[0]!.message;
}

describe("validateHyperparams", () => {
  it("fills every default when nothing is given", () => {
    expect(values(validateHyperparams(SPECS, {}))).toEqual({
      lr: 0.001,
      epochs: 3,
      shuffle: true,
      optimizer: "adam",
    });
  });

  it("keeps given values and fills the rest", () => {
    expect(values(validateHyperparams(SPECS, { lr: 0.5, optimizer: "sgd" }))).toEqual({
      lr: 0.5,
      epochs: 3,
      shuffle: true,
      optimizer: "sgd",
    });
  });

  it("rejects an unknown key and lists the known ones, sorted", () => {
    const msg = onlyIssue(validateHyperparams(SPECS, { learning_rate: 0.1 }), "learning_rate");
    expect(msg).toBe('unknown hyperparameter "learning_rate"; known: epochs, lr, optimizer, shuffle');
  });

  it("says (none) when the recipe declares no parameters", () => {
    expect(onlyIssue(validateHyperparams({}, { x: 1 }), "x")).toContain("known: (none)");
  });

  // A key that happens to be an Object.prototype member must be reported like any other unknown key,
  // not crash admission with a TypeError.
  it.each(["constructor", "toString", "hasOwnProperty"])("reports %s as an unknown key", (key) => {
    const msg = onlyIssue(validateHyperparams(SPECS, { [key]: 1 }), key);
    expect(msg).toContain("unknown hyperparameter");
  });

  it("requires a declared parameter named like an Object.prototype member", () => {
    const required: ParamSpec = { type: "int", doc: "" };
    const specs: Record<string, ParamSpec> = Object.fromEntries([["constructor", required]]);
    expect(onlyIssue(validateHyperparams(specs, {}), "constructor")).toContain("is required");
  });

  it("reports every problem at once", () => {
    const list = issues(validateHyperparams(SPECS, { lr: 2, epochs: 0, bogus: 1 }));
    expect(list.map((i) => i.key).sort()).toEqual(["bogus", "epochs", "lr"]);
  });

  describe("numbers", () => {
    it("accepts a fraction for a float and refuses it for an int", () => {
      expect(values(validateHyperparams(SPECS, { lr: 0.25 })).lr).toBe(0.25);
      expect(onlyIssue(validateHyperparams(SPECS, { epochs: 2.5 }), "epochs")).toBe(
        '"epochs" must be an integer, got 2.5',
      );
    });

    it("accepts a whole number for a float", () => {
      expect(values(validateHyperparams(SPECS, { lr: 1 })).lr).toBe(1);
    });

    it("enforces min and max inclusively", () => {
      expect(values(validateHyperparams(SPECS, { epochs: 1 })).epochs).toBe(1);
      expect(values(validateHyperparams(SPECS, { epochs: 100 })).epochs).toBe(100);
      expect(onlyIssue(validateHyperparams(SPECS, { epochs: 0 }), "epochs")).toBe(
        '"epochs" must be >= 1, got 0',
      );
      expect(onlyIssue(validateHyperparams(SPECS, { epochs: 101 }), "epochs")).toBe(
        '"epochs" must be <= 100, got 101',
      );
      expect(onlyIssue(validateHyperparams(SPECS, { lr: -0.1 }), "lr")).toContain(">= 0");
      expect(onlyIssue(validateHyperparams(SPECS, { lr: 1.5 }), "lr")).toContain("<= 1");
    });

    it.each([Number.NaN, Number.POSITIVE_INFINITY])("refuses the non-finite number %s", (n) => {
      expect(onlyIssue(validateHyperparams(SPECS, { lr: n }), "lr")).toContain("must be a float");
    });

    it("refuses numeric text unless coercion is asked for", () => {
      expect(onlyIssue(validateHyperparams(SPECS, { epochs: "12" }), "epochs")).toMatch(
        /^"epochs" must be an? int.*got "12"$/,
      );
    });
  });

  describe("bools and strings", () => {
    it("takes real booleans only", () => {
      expect(values(validateHyperparams(SPECS, { shuffle: false })).shuffle).toBe(false);
      expect(onlyIssue(validateHyperparams(SPECS, { shuffle: "true" }), "shuffle")).toContain(
        "must be true or false",
      );
      expect(onlyIssue(validateHyperparams(SPECS, { shuffle: 1 }), "shuffle")).toContain("true or false");
    });

    it("refuses a string outside its choices, naming them", () => {
      expect(onlyIssue(validateHyperparams(SPECS, { optimizer: "adamw" }), "optimizer")).toBe(
        '"optimizer" must be one of adam, sgd, got "adamw"',
      );
    });

    it("takes any string when there are no choices, but not a number", () => {
      const specs: Record<string, ParamSpec> = { tag: { type: "string", doc: "" } };
      expect(values(validateHyperparams(specs, { tag: "anything" })).tag).toBe("anything");
      expect(onlyIssue(validateHyperparams(specs, { tag: 7 }), "tag")).toContain("must be a string");
    });
  });

  describe("required parameters", () => {
    const specs: Record<string, ParamSpec> = {
      dataset: { type: "string", doc: "" },
      steps: { type: "int", min: 1, doc: "" },
    };

    it("reports each missing parameter with its type", () => {
      const list = issues(validateHyperparams(specs, {}));
      expect(list).toEqual([
        { key: "dataset", message: '"dataset" is required (string)' },
        { key: "steps", message: '"steps" is required (int)' },
      ]);
    });

    it("does not report an invalid value as missing too", () => {
      expect(onlyIssue(validateHyperparams(specs, { dataset: "d", steps: 0 }), "steps")).toContain(">= 1");
    });

    it("passes once they are given", () => {
      expect(values(validateHyperparams(specs, { dataset: "d", steps: 5 }))).toEqual({
        dataset: "d",
        steps: 5,
      });
    });
  });

  describe("coerceStrings (CLI --set k=v)", () => {
    const coerce = { coerceStrings: true };

    it('turns "0.01" into a float, "12" into an int and "true"/"false" into booleans', () => {
      expect(
        values(validateHyperparams(SPECS, { lr: "0.01", epochs: "12", shuffle: "false" }, coerce)),
      ).toEqual({ lr: 0.01, epochs: 12, shuffle: false, optimizer: "adam" });
      expect(values(validateHyperparams(SPECS, { shuffle: "true" }, coerce)).shuffle).toBe(true);
    });

    it("still checks the coerced value", () => {
      expect(onlyIssue(validateHyperparams(SPECS, { epochs: "12.5" }, coerce), "epochs")).toContain(
        "must be an integer",
      );
      expect(onlyIssue(validateHyperparams(SPECS, { epochs: "500" }, coerce), "epochs")).toContain("<= 100");
    });

    it.each(["", "  ", "abc", "1,5"])("refuses non-numeric text %j for a number", (raw) => {
      expect(onlyIssue(validateHyperparams(SPECS, { lr: raw }, coerce), "lr")).toContain("must be a float");
    });

    it.each(["yes", "1", "True"])("refuses %j for a bool", (raw) => {
      expect(onlyIssue(validateHyperparams(SPECS, { shuffle: raw }, coerce), "shuffle")).toContain(
        "true or false",
      );
    });

    it("leaves strings as strings", () => {
      expect(values(validateHyperparams(SPECS, { optimizer: "sgd" }, coerce)).optimizer).toBe("sgd");
    });
  });
});
