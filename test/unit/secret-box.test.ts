/** Sealing job secrets (AES-256-GCM bound to the row) and masking them in log lines. */
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  openSecret,
  type SecretAddress,
  SecretKeyError,
  sealSecret,
  secretKeyring,
} from "../../d1/secret-box.js";
import { maskNeedles, maskText } from "../../durable-objects/run/mask.js";

const newKey = () => randomBytes(32).toString("base64url");
const at: SecretAddress = { scope: "user", ownerId: "usr_1", name: "HF_TOKEN" };

describe("secret box", () => {
  it("opens what it sealed, with a fresh IV each time", async () => {
    const ring = await secretKeyring(newKey(), undefined)!;
    const a = await sealSecret(ring, at, "hf_value_1234567890");
    const b = await sealSecret(ring, at, "hf_value_1234567890");
    expect(a.sealed).not.toBe(b.sealed);
    expect(a.keyId).toBe(ring.current.id);
    expect(await openSecret(ring, at, a)).toBe("hf_value_1234567890");
  });

  it("refuses a value moved to another row (another user, scope or name)", async () => {
    const ring = await secretKeyring(newKey(), undefined)!;
    const sealed = await sealSecret(ring, at, "hf_value_1234567890");
    for (const other of [
      { ...at, ownerId: "usr_2" },
      { ...at, scope: "fleet" as const },
      { ...at, name: "WANDB_API_KEY" },
    ]) {
      await expect(openSecret(ring, other, sealed)).rejects.toThrow(SecretKeyError);
    }
  });

  it("opens values of an older key listed for rotation, and names a key that is gone", async () => {
    const old = newKey();
    const before = await secretKeyring(old, undefined)!;
    const sealed = await sealSecret(before, at, "sealed-under-the-old-key");
    const rotated = await secretKeyring(newKey(), old)!;
    expect(rotated.current.id).not.toBe(before.current.id);
    expect(await openSecret(rotated, at, sealed)).toBe("sealed-under-the-old-key");
    const forgot = await secretKeyring(newKey(), undefined)!;
    await expect(openSecret(forgot, at, sealed)).rejects.toThrow(`key ${before.current.id}`);
  });

  it("refuses a key that is not 32 bytes of base64url, and has no keyring without a key", async () => {
    expect(secretKeyring(undefined, undefined)).toBeNull();
    await expect(secretKeyring("dG9vc2hvcnQ", undefined)!).rejects.toThrow("SF_SECRETS_KEY must be 32 bytes");
    await expect(secretKeyring(newKey(), "nope")!).rejects.toThrow("SF_SECRETS_OLD_KEYS entry 1");
  });
});

describe("masking", () => {
  it("masks every occurrence, longest value first, and each line of a multi-line value", () => {
    const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEF\n-----END PRIVATE KEY-----";
    const needles = maskNeedles(["abcdefgh", "abcdefgh-longer", pem, "short"]);
    expect(maskText("x abcdefgh-longer y abcdefgh z", needles)).toBe("x *** y *** z");
    expect(maskText("key line: MIIEvQIBADANBgkqhkiG9w0BAQEF", needles)).toBe("key line: ***");
    // Values too short to tell from ordinary text are not masked (the API refuses them anyway).
    expect(maskText("short", needles)).toBe("short");
    // Only exact values: a transformed one (docs/security.md says so) goes through as printed.
    expect(maskText(btoa("abcdefgh"), needles)).toBe(btoa("abcdefgh"));
  });

  it("never leaves a secret of 8+ characters in a line, wherever it sits", () => {
    const secret = fc
      .string({ minLength: 8, maxLength: 40 })
      .filter((s) => s.trim() === s && !/[\r\n]/.test(s));
    fc.assert(
      fc.property(secret, fc.string(), fc.string(), (s, pre, post) => {
        const out = maskText(`${pre}${s}${post}`, maskNeedles([s]));
        expect(out.includes(s)).toBe(false);
      }),
    );
  });
});
