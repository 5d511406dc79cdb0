/** Contexts as data: the default names and the migration of a version-1 credentials file. */
import { describe, expect, it } from "vitest";
import { contextNameFor, contextOf, migrate } from "../../cli/config.js";

const login = (user: string) => ({
  token: `sfp_${user}`,
  user,
  role: "operator",
  saved_at: "2026-01-01T00:00:00Z",
});

describe("contextNameFor", () => {
  it("names a context by host[:port], unique among the names taken", () => {
    expect(contextNameFor("https://sf.example.com", [])).toBe("sf.example.com");
    expect(contextNameFor("http://127.0.0.1:8787", [])).toBe("127.0.0.1:8787");
    expect(contextNameFor("http://127.0.0.1:8787", ["127.0.0.1:8787"])).toBe("127.0.0.1:8787-2");
    expect(contextNameFor("http://a:1/x", ["a:1", "a:1-2"])).toBe("a:1-3");
  });
});

describe("migrate (credentials.json version 1 → 2)", () => {
  it("keeps every saved login, names one context per server and makes the default current", () => {
    const v1 = {
      version: 1 as const,
      default: "https://b.example",
      servers: { "http://a.example:8787": login("ada"), "https://b.example": login("bob") },
    };
    const v2 = migrate(v1);
    expect(v2).toEqual({
      version: 2,
      current: "b.example",
      default: "https://b.example",
      contexts: {
        "a.example:8787": { server: "http://a.example:8787" },
        "b.example": { server: "https://b.example" },
      },
      servers: v1.servers,
    });
    expect(contextOf(v2, "http://a.example:8787")).toBe("a.example:8787");
  });

  it("gives two servers on the same host:port (http and https) different names", () => {
    const v2 = migrate({
      version: 1,
      default: null,
      servers: { "http://h:1": login("a"), "https://h:1": login("b") },
    });
    expect(Object.keys(v2.contexts).sort()).toEqual(["h:1", "h:1-2"]);
    expect(v2.current).toBeNull();
  });

  it("keeps a default server that has no saved login as the current context", () => {
    const v2 = migrate({ version: 1, default: "http://only:2", servers: {} });
    expect(v2.current).toBe("only:2");
    expect(v2.contexts["only:2"]).toEqual({ server: "http://only:2" });
  });
});
