import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  catalogDigest,
  compareVersions,
  type RecipeVersionBody,
  recipeDigest,
} from "../../contract/catalog.schema.js";
import { canonicalJson, DIGEST_RE, digestOf, digestOfJson } from "../../contract/digest.js";

const BODY: RecipeVersionBody = {
  name: "python3/custom",
  version: "1.2.0",
  description: "run a script",
  frameworks: [{ kind: "python", versions: ["3"], runtime_id: "python3-stdlib", image: null }],
  params: {
    lr: { type: "float", default: 0.01, min: 0, doc: "" },
    steps: { type: "int", default: 10, doc: "" },
  },
  entrypoint: { kind: "script", path: "train.sh" },
  requires_image: true,
  template: { "train.sh": "echo hi\n" },
};

/** The same body with every object's keys inserted in reverse order, at every depth. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value && typeof value === "object") {
    const entries = Object.entries(value).reverse();
    return Object.fromEntries(entries.map(([k, v]) => [k, reversedKeys(v)]));
  }
  return value;
}

describe("canonicalJson", () => {
  it("sorts keys at every depth and drops undefined fields", () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[{"y":2,"z":1}]},"b":1}',
    );
  });

  it("keeps array order, which is meaningful", () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it("writes exactly what JSON.stringify writes of a key-sorted copy (stored request hashes stay valid)", () => {
    // The definition it replaced, kept here as the reference: Idempotency-Keys and recipe digests stored
    // before the one-pass writer hash the same bytes after it.
    const sortDeep = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(sortDeep);
      if (v && typeof v === "object") {
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(v).sort()) {
          const x = (v as Record<string, unknown>)[k];
          if (x !== undefined) out[k] = sortDeep(x);
        }
        return out;
      }
      return v;
    };
    const value = fc.letrec((tie) => ({
      any: fc.oneof(
        { depthSize: "small" },
        fc.constant(null),
        fc.constant(undefined),
        fc.boolean(),
        fc.double(),
        fc.integer(),
        fc.string({ unit: "binary" }),
        fc.array(tie("any"), { maxLength: 5 }),
        // "__proto__" aside: the old copy set the prototype with it and so dropped it; the writer keeps it.
        fc.dictionary(
          fc.string({ unit: "binary", maxLength: 6 }).filter((k) => k !== "__proto__"),
          tie("any"),
          { maxKeys: 5 },
        ),
      ),
    })).any;
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(JSON.stringify(sortDeep(v)) ?? "null");
      }),
      { numRuns: 2000 },
    );
  });
});

describe("digests", () => {
  it("are sha256 of the bytes, in the sha256:<hex> form", async () => {
    // sha256("abc") from FIPS 180-2.
    expect(await digestOf("abc")).toBe(
      "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(await digestOfJson({ x: 1 })).toMatch(DIGEST_RE);
  });
});

describe("recipeDigest", () => {
  it("does not depend on key order", async () => {
    const a = await recipeDigest(BODY);
    const b = await recipeDigest(reversedKeys(BODY) as RecipeVersionBody);
    expect(a).toMatch(DIGEST_RE);
    expect(b).toBe(a);
  });

  it("treats omitted defaults like their explicit values", async () => {
    const explicit: RecipeVersionBody = { ...BODY, description: "", template: {}, requires_image: false };
    const { description: _d, template: _t, requires_image: _r, ...rest } = BODY;
    expect(await recipeDigest(rest as RecipeVersionBody)).toBe(await recipeDigest(explicit));
  });

  it("changes when anything a user would run changes", async () => {
    const base = await recipeDigest(BODY);
    const variants: RecipeVersionBody[] = [
      { ...BODY, version: "1.2.1" },
      { ...BODY, entrypoint: { kind: "script", path: "run.sh" } },
      { ...BODY, params: { ...BODY.params, steps: { type: "int", default: 11, doc: "" } } },
      { ...BODY, template: { "train.sh": "echo bye\n" } },
    ];
    const digests = await Promise.all(variants.map((v) => recipeDigest(v)));
    for (const d of digests) expect(d).not.toBe(base);
    expect(new Set(digests).size).toBe(digests.length);
  });

  it("refuses a body that does not match the schema", async () => {
    // Sync throw or rejection: either way no digest comes back.
    await expect((async () => recipeDigest({ ...BODY, version: "v1" }))()).rejects.toThrow(/semver/);
  });
});

describe("catalogDigest", () => {
  const rows = [
    { name: "a/x", version: "1.0.0", digest: `sha256:${"1".repeat(64)}` },
    { name: "a/x", version: "1.1.0", digest: `sha256:${"2".repeat(64)}` },
    { name: "b/y", version: "0.1.0", digest: `sha256:${"3".repeat(64)}` },
  ];

  it("does not depend on row order", async () => {
    const d = await catalogDigest(rows);
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(rows, { minLength: rows.length }), async (shuffled) => {
        expect(await catalogDigest(shuffled)).toBe(d);
      }),
    );
  });

  it("ignores extra fields on the rows", async () => {
    const withExtras = rows.map((r, i) => ({ ...r, published_at: "2026-01-01T00:00:00Z", id: i }));
    expect(await catalogDigest(withExtras)).toBe(await catalogDigest(rows));
  });

  it("changes when a version is added, removed or re-digested", async () => {
    const d = await catalogDigest(rows);
    expect(await catalogDigest(rows.slice(1))).not.toBe(d);
    expect(
      await catalogDigest([...rows, { name: "b/y", version: "0.2.0", digest: `sha256:${"4".repeat(64)}` }]),
    ).not.toBe(d);
    expect(
      await catalogDigest([{ ...rows[0]!, digest: `sha256:${"9".repeat(64)}` }, ...rows.slice(1)]),
    ).not.toBe(d);
  });

  it("is the digest of no rows for an empty catalog", async () => {
    expect(await catalogDigest([])).toBe(await digestOfJson([]));
  });
});

describe("compareVersions", () => {
  const sign = (n: number) => Math.sign(n);

  it("orders X.Y.Z numerically, not as text", () => {
    expect(sign(compareVersions("1.2.3", "1.10.0"))).toBe(-1);
    expect(sign(compareVersions("2.0.0", "1.99.99"))).toBe(1);
    expect(sign(compareVersions("0.0.9", "0.0.10"))).toBe(-1);
    expect(compareVersions("1.2.3", "1.2.3")).toBe(0);
  });

  it("sorts a pre-release before its release and after the previous release", () => {
    expect(sign(compareVersions("1.0.0-rc.1", "1.0.0"))).toBe(-1);
    expect(sign(compareVersions("1.0.0", "1.0.0-rc.1"))).toBe(1);
    expect(sign(compareVersions("0.9.9", "1.0.0-alpha"))).toBe(-1);
  });

  it("orders pre-releases of one version by their tags", () => {
    expect(sign(compareVersions("1.0.0-alpha", "1.0.0-beta"))).toBe(-1);
    expect(sign(compareVersions("1.0.0-alpha", "1.0.0-alpha.1"))).toBe(-1);
    expect(sign(compareVersions("1.0.0-beta", "1.0.0-rc.1"))).toBe(-1);
  });

  // "latest" in the catalog is the last version after this sort: publishing 1.0.0-rc.10 after rc.2 must
  // make rc.10 the latest (semver: numeric identifiers compare as numbers).
  it("compares numeric pre-release identifiers as numbers", () => {
    expect(sign(compareVersions("1.0.0-rc.2", "1.0.0-rc.10"))).toBe(-1);
    expect(sign(compareVersions("1.0.0-beta.11", "1.0.0-beta.2"))).toBe(1);
  });

  it("sorts a list into release order", () => {
    const sorted = ["1.10.0", "1.0.0", "1.0.0-rc.1", "0.9.0", "1.2.0", "1.0.0-alpha"].sort(compareVersions);
    expect(sorted).toEqual(["0.9.0", "1.0.0-alpha", "1.0.0-rc.1", "1.0.0", "1.2.0", "1.10.0"]);
  });

  it("is antisymmetric on release and pre-release versions", () => {
    const part = fc.integer({ min: 0, max: 20 });
    const version = fc
      .tuple(part, part, part, fc.option(fc.constantFrom("alpha", "beta", "rc.1"), { nil: undefined }))
      .map(([a, b, c, pre]) => `${a}.${b}.${c}${pre ? `-${pre}` : ""}`);
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(sign(compareVersions(a, b))).toBe(-sign(compareVersions(b, a)) || 0);
        if (a === b) expect(compareVersions(a, b)).toBe(0);
      }),
    );
  });
});
