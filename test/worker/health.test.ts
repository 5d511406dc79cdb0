import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

describe("health", () => {
  it("answers without a token", async () => {
    const res = await SELF.fetch("http://sf.test/v1/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, api: "v1" });
  });
});
