/**
 * Signing webhook deliveries (contract/webhook-signature.ts), checked against implementations that are not
 * ours: the `standardwebhooks` npm package and node:crypto's HMAC.
 */
import { createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  deliveryHeaders,
  LEGACY_HEADERS_REMOVED_IN,
  legacySignatureHeader,
  mintWebhookSecret,
  signatureHeader,
  signingKey,
  standardSecretKey,
} from "../../contract/webhook-signature.js";

const ID = "evt_job_01jv6m0d1xq1c9f5n8t3k2w7ha_5";
const BODY = JSON.stringify({ id: ID, type: "job.succeeded", data: { note: "ünïcödé ✓" } });
const NOW = Math.floor(Date.now() / 1000);

/** A secret as StarForge minted them before Standard Webhooks. */
const legacySecret = () => `whsec_${randomBytes(32).toString("base64url")}`;

function headersOf(id: string, timestamp: number, signature: string): Record<string, string> {
  return { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature };
}

describe("webhook secrets", () => {
  it("mints whsec_ + padded base64 of 32 random bytes, a different one each time, that the library accepts", () => {
    const secrets = Array.from({ length: 50 }, mintWebhookSecret);
    expect(new Set(secrets).size).toBe(50);
    for (const s of secrets) {
      expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(s.slice(6), "base64")).toHaveLength(32);
      expect(standardSecretKey(s)).toEqual(new Uint8Array(Buffer.from(s.slice(6), "base64")));
      expect(() => new Webhook(s)).not.toThrow();
    }
  });

  it("treats a pre-Standard-Webhooks secret (whsec_ + 43 base64url) as legacy: its key is the string's bytes", () => {
    for (let i = 0; i < 50; i++) {
      const s = legacySecret();
      expect(standardSecretKey(s)).toBeNull();
      expect(Buffer.from(signingKey(s)).toString("utf8")).toBe(s);
    }
  });

  it("accepts 24 to 64 decoded bytes behind whsec_ and nothing else as a standard secret", () => {
    const b64 = (n: number) => randomBytes(n).toString("base64");
    expect(standardSecretKey(`whsec_${b64(24)}`)).toHaveLength(24);
    expect(standardSecretKey(`whsec_${b64(64)}`)).toHaveLength(64);
    for (const s of [
      `whsec_${b64(16)}`,
      `whsec_${b64(65)}`,
      b64(32),
      `whsec_${b64(32).slice(0, -1)}`,
      "whsec_",
    ])
      expect({ s, key: standardSecretKey(s) }).toEqual({ s, key: null });
  });
});

describe("webhook-signature (Standard Webhooks)", () => {
  it("is what the standardwebhooks library computes for the same id, timestamp and body, and it verifies", async () => {
    const secret = mintWebhookSecret();
    const header = await signatureHeader([secret], ID, NOW, BODY);
    expect(header).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(header).toBe(new Webhook(secret).sign(ID, new Date(NOW * 1000), BODY));
    expect(new Webhook(secret).verify(BODY, headersOf(ID, NOW, header))).toEqual(JSON.parse(BODY));
  });

  it("signs `<id>.<timestamp>.<body>` with the decoded key: node:crypto gives the same MAC", async () => {
    const secret = mintWebhookSecret();
    const mac = createHmac("sha256", Buffer.from(secret.slice(6), "base64"))
      .update(`${ID}.${NOW}.${BODY}`)
      .digest("base64");
    expect(await signatureHeader([secret], ID, NOW, BODY)).toBe(`v1,${mac}`);
  });

  it("during a rotation carries two space-separated entries, new first, and either secret verifies", async () => {
    const [fresh, old, other] = [mintWebhookSecret(), mintWebhookSecret(), mintWebhookSecret()];
    const header = await signatureHeader([fresh, old], ID, NOW, BODY);
    const entries = header.split(" ");
    expect(entries).toHaveLength(2);
    expect(entries[0]).toBe(new Webhook(fresh).sign(ID, new Date(NOW * 1000), BODY));
    expect(entries[1]).toBe(new Webhook(old).sign(ID, new Date(NOW * 1000), BODY));
    for (const s of [fresh, old])
      expect(new Webhook(s).verify(BODY, headersOf(ID, NOW, header))).toBeTruthy();
    expect(() => new Webhook(other).verify(BODY, headersOf(ID, NOW, header))).toThrow(
      /No matching signature/,
    );
  });

  it("for a legacy secret verifies with the library given the secret's bytes as a raw key", async () => {
    const secret = legacySecret();
    const header = await signatureHeader([secret], ID, NOW, BODY);
    const raw = new Webhook(Buffer.from(secret), { format: "raw" });
    expect(raw.verify(BODY, headersOf(ID, NOW, header))).toEqual(JSON.parse(BODY));
  });

  it("binds the id and the timestamp: another id, another timestamp or another body does not verify", async () => {
    const secret = mintWebhookSecret();
    const header = await signatureHeader([secret], ID, NOW, BODY);
    const wh = new Webhook(secret);
    expect(() => wh.verify(BODY, headersOf(`${ID}x`, NOW, header))).toThrow(/No matching signature/);
    expect(() => wh.verify(BODY, headersOf(ID, NOW - 1, header))).toThrow(/No matching signature/);
    expect(() => wh.verify(`${BODY} `, headersOf(ID, NOW, header))).toThrow(/No matching signature/);
  });
});

describe("StarForge-Webhook-Signature (deprecated)", () => {
  it("is unchanged: v1=<hex HMAC(secret string, `<timestamp>.<body>`)>, comma-separated, for both kinds of secret", async () => {
    const [fresh, old] = [mintWebhookSecret(), legacySecret()];
    const hex = (s: string) => createHmac("sha256", s).update(`${NOW}.${BODY}`).digest("hex");
    expect(await legacySignatureHeader([fresh, old], NOW, BODY)).toBe(`v1=${hex(fresh)},v1=${hex(old)}`);
  });

  it("is sent beside the Standard Webhooks headers with the same id and timestamp", async () => {
    const secret = mintWebhookSecret();
    const h = await deliveryHeaders([secret], ID, NOW, BODY);
    expect(Object.keys(h).sort()).toEqual([
      "StarForge-Webhook-Id",
      "StarForge-Webhook-Signature",
      "StarForge-Webhook-Timestamp",
      "webhook-id",
      "webhook-signature",
      "webhook-timestamp",
    ]);
    expect(h).toMatchObject({
      "webhook-id": ID,
      "StarForge-Webhook-Id": ID,
      "webhook-timestamp": String(NOW),
      "StarForge-Webhook-Timestamp": String(NOW),
      "StarForge-Webhook-Signature": await legacySignatureHeader([secret], NOW, BODY),
    });
    expect(new Webhook(secret).verify(BODY, h)).toBeTruthy();
  });

  it(`goes in ${LEGACY_HEADERS_REMOVED_IN}, as docs/api.md says: this release is older (else remove the headers now)`, () => {
    const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, "../../package.json"), "utf8")) as {
      version: string;
    };
    const parts = (v: string) => v.split(".").map(Number);
    const [a, b] = [parts(pkg.version), parts(LEGACY_HEADERS_REMOVED_IN)];
    const older = a[0]! < b[0]! || (a[0] === b[0] && (a[1]! < b[1]! || (a[1] === b[1] && a[2]! < b[2]!)));
    expect(older, `package.json is ${pkg.version}`).toBe(true);
    const doc = readFileSync(resolve(import.meta.dirname, "../../docs/api.md"), "utf8");
    expect(doc).toContain(
      `**Deprecated, removed in ${LEGACY_HEADERS_REMOVED_IN}:** \`StarForge-Webhook-Id\``,
    );
  });
});
