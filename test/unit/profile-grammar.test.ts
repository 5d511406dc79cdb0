import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  expandProfiles,
  type ProfileEntry,
  ProfileError,
  parseProfileArg,
  poolGpus,
  shapeFor,
} from "../../contract/profile-grammar.js";

const H200: ProfileEntry = {
  name: "h200",
  series: "h200",
  gpus_per_node: 8,
  default_gpus: 8,
  description: "",
};
const L40S: ProfileEntry = {
  name: "l40s",
  series: "l40s",
  gpus_per_node: 4,
  default_gpus: 1,
  description: "",
};
const REGISTRY: readonly ProfileEntry[] = [H200, L40S];

/** Runs `fn`, asserts it throws a ProfileError and returns it so the caller can check code and text. */
function profileError(fn: () => unknown): ProfileError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ProfileError);
    return err as ProfileError;
  }
  throw new Error("expected a ProfileError, nothing was thrown");
}

describe("parseProfileArg", () => {
  it("reads NAME, NAME:GPUS and ROLE=NAME:GPUS", () => {
    expect(parseProfileArg("h200")).toEqual({ role: undefined, name: "h200", gpus: undefined });
    expect(parseProfileArg("h200:4")).toEqual({ role: undefined, name: "h200", gpus: 4 });
    expect(parseProfileArg("trainer=h200:16")).toEqual({ role: "trainer", name: "h200", gpus: 16 });
    expect(parseProfileArg("rollout=l40s")).toEqual({ role: "rollout", name: "l40s", gpus: undefined });
  });

  it("ignores surrounding whitespace", () => {
    expect(parseProfileArg("  h200:2 ")).toEqual({ role: undefined, name: "h200", gpus: 2 });
  });

  it("refuses a count of zero", () => {
    const err = profileError(() => parseProfileArg("h200:0"));
    expect(err.code).toBe("INVALID_PROFILE");
    expect(err.message).toMatch(/at least 1/);
  });

  it.each([
    "",
    "   ",
    "h200:",
    ":4",
    "h200:x",
    "h200:-1",
    "h200:4:4",
    "h200:1.5",
    "H200",
    "=h200",
    "trainer=",
    "a=b=c",
    "trainer = h200",
    "h200 l40s",
    "h200:123456",
  ])("refuses garbage %j with INVALID_PROFILE and the expected grammar", (arg) => {
    const err = profileError(() => parseProfileArg(arg));
    expect(err.code).toBe("INVALID_PROFILE");
    expect(err.message).toContain("[ROLE=]NAME[:GPUS]");
  });
});

describe("shapeFor", () => {
  it("uses the profile's default count when none is given", () => {
    expect(shapeFor(H200, undefined)).toEqual({ nodes: 1, gpus_per_node: 8 });
    expect(shapeFor(L40S, undefined)).toEqual({ nodes: 1, gpus_per_node: 1 });
  });

  it("puts a count up to gpus_per_node on one node", () => {
    expect(shapeFor(H200, 4)).toEqual({ nodes: 1, gpus_per_node: 4 });
    expect(shapeFor(H200, 1)).toEqual({ nodes: 1, gpus_per_node: 1 });
    expect(shapeFor(H200, 8)).toEqual({ nodes: 1, gpus_per_node: 8 });
  });

  it("spreads a multiple of gpus_per_node over full nodes", () => {
    expect(shapeFor(H200, 16)).toEqual({ nodes: 2, gpus_per_node: 8 });
    expect(shapeFor(H200, 64)).toEqual({ nodes: 8, gpus_per_node: 8 });
  });

  it("refuses a count that is neither, naming the allowed shapes", () => {
    const err = profileError(() => shapeFor(H200, 12));
    expect(err.code).toBe("INVALID_PROFILE");
    expect(err.message).toContain("12");
    expect(err.message).toContain("1–8 GPUs on one node");
    expect(err.message).toContain("multiple of 8");
    expect(err.message).toContain("16");
  });

  it("refuses zero, negative and fractional counts", () => {
    for (const n of [0, -8, 2.5]) expect(profileError(() => shapeFor(H200, n)).code).toBe("INVALID_PROFILE");
  });

  it("accepts n iff n <= gpus_per_node or n is a multiple of it, and the shape holds exactly n GPUs", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 1024 }), (g, n) => {
        const p: ProfileEntry = {
          name: "p",
          series: "s",
          gpus_per_node: g,
          default_gpus: 1,
          description: "",
        };
        const legal = n <= g || n % g === 0;
        let shape: { nodes: number; gpus_per_node: number } | undefined;
        try {
          shape = shapeFor(p, n);
        } catch (err) {
          expect(err).toBeInstanceOf(ProfileError);
        }
        expect(shape !== undefined).toBe(legal);
        if (shape) {
          expect(shape.nodes * shape.gpus_per_node).toBe(n);
          expect(shape.gpus_per_node).toBeLessThanOrEqual(g);
          // A multi-node shape always uses whole nodes.
          if (shape.nodes > 1) expect(shape.gpus_per_node).toBe(g);
        }
      }),
    );
  });
});

describe("expandProfiles", () => {
  it("expands one profile into the default pool", () => {
    const { pools, roles } = expandProfiles(["h200:16"], REGISTRY);
    expect(pools).toEqual([{ name: "default", profile: "h200", series: "h200", nodes: 2, gpus_per_node: 8 }]);
    expect(roles).toEqual({ default: "default" });
    expect(poolGpus(pools[0]!)).toBe(16);
  });

  it("expands roles into one pool each", () => {
    const { pools, roles } = expandProfiles(["trainer=h200:8", "rollout=l40s:2"], REGISTRY);
    expect(pools).toEqual([
      { name: "trainer", profile: "h200", series: "h200", nodes: 1, gpus_per_node: 8 },
      { name: "rollout", profile: "l40s", series: "l40s", nodes: 1, gpus_per_node: 2 },
    ]);
    expect(roles).toEqual({ trainer: "trainer", rollout: "rollout" });
  });

  it("names the known profiles when the profile is unknown", () => {
    const err = profileError(() => expandProfiles(["a100:8"], REGISTRY));
    expect(err.code).toBe("PROFILE_NOT_FOUND");
    expect(err.message).toContain('"a100"');
    expect(err.message).toContain("known profiles: h200, l40s");
  });

  it("says (none) when the registry is empty", () => {
    expect(profileError(() => expandProfiles(["h200"], [])).message).toContain("(none)");
  });

  it("refuses a role given twice", () => {
    const err = profileError(() => expandProfiles(["trainer=h200:8", "trainer=l40s:2"], REGISTRY));
    expect(err.code).toBe("INVALID_PROFILE");
    expect(err.message).toContain('role "trainer" is given twice');
  });

  it("refuses several profiles without roles", () => {
    const err = profileError(() => expandProfiles(["h200:8", "l40s:2"], REGISTRY));
    expect(err.code).toBe("INVALID_PROFILE");
    expect(err.message).toContain("each needs a ROLE= prefix");
  });

  // The rule is "with more than one --profile, each needs a ROLE= prefix"; a bare profile next to a
  // role-prefixed one must not silently become a pool called "default".
  it.each([[["trainer=h200:8", "l40s:2"]], [["h200:8", "rollout=l40s:2"]]])(
    "refuses a bare profile mixed with role-prefixed ones: %j",
    (args) => {
      const err = profileError(() => expandProfiles(args, REGISTRY));
      expect(err.code).toBe("INVALID_PROFILE");
      expect(err.message).toContain("each needs a ROLE= prefix");
    },
  );

  it("refuses an empty argument list", () => {
    expect(profileError(() => expandProfiles([], REGISTRY)).code).toBe("INVALID_PROFILE");
  });

  it("passes shape errors through with the allowed shapes", () => {
    const err = profileError(() => expandProfiles(["trainer=h200:12"], REGISTRY));
    expect(err.code).toBe("INVALID_PROFILE");
    expect(err.message).toContain("multiple of 8");
  });
});
