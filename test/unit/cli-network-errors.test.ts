/**
 * How sf names a request that got no answer: by Node's error code in the cause chain (never the message
 * text), each with a code, exit 6 and a hint. The real sockets behind these are exercised in
 * test/cli/connection-errors.test.ts; DNS cannot be (no traffic leaves loopback here), so its error is
 * built with the shape Node gives it: fetch's TypeError whose cause has code ENOTFOUND.
 */
import { describe, expect, it } from "vitest";
import { EXIT, errorCodes, networkError } from "../../cli/errors.js";

function fetchFailed(cause: Error): TypeError {
  return new TypeError("fetch failed", { cause });
}

function sysError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe("networkError", () => {
  it("says 'no such host' for a DNS failure (HOST_NOT_FOUND)", () => {
    const e = networkError(
      "https://sf.nowhere.example",
      fetchFailed(sysError("getaddrinfo ENOTFOUND sf.nowhere.example", "ENOTFOUND")),
    );
    expect(e.code).toBe("HOST_NOT_FOUND");
    expect(e.exit).toBe(EXIT.UNAVAILABLE);
    expect(e.message).toContain("no such host: sf.nowhere.example");
    expect(e.hint).toContain("spelling");
  });

  it("treats a temporary resolver failure the same way", () => {
    expect(
      networkError("http://x.test", fetchFailed(sysError("getaddrinfo EAI_AGAIN x.test", "EAI_AGAIN"))).code,
    ).toBe("HOST_NOT_FOUND");
  });

  it("finds the code inside an AggregateError (happy eyeballs tried several addresses)", () => {
    const agg = Object.assign(
      new AggregateError([sysError("connect ECONNREFUSED ::1:80", "ECONNREFUSED")], "all failed"),
      {},
    );
    expect(errorCodes(fetchFailed(agg))).toContain("ECONNREFUSED");
    const e = networkError("http://localhost:80", fetchFailed(agg));
    expect(e.code).toBe("UNREACHABLE");
    expect(e.message).toContain("connection refused");
  });

  it("names each TLS cause from its code and hints NODE_EXTRA_CA_CERTS", () => {
    const cases: Array<[string, string]> = [
      ["DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed"],
      ["SELF_SIGNED_CERT_IN_CHAIN", "self-signed CA"],
      ["UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "does not trust"],
      ["CERT_HAS_EXPIRED", "expired"],
      ["CERT_NOT_YET_VALID", "clock"],
      ["ERR_TLS_CERT_ALTNAME_INVALID", "hostname mismatch"],
      ["ERR_SSL_WRONG_VERSION_NUMBER", "does not speak TLS"],
      ["ERR_SSL_SOMETHING_NEW", "TLS handshake failed"],
    ];
    for (const [code, words] of cases) {
      const e = networkError("https://127.0.0.1:8443", fetchFailed(sysError("whatever openssl said", code)));
      expect(e.code, code).toBe("TLS_ERROR");
      expect(e.exit).toBe(EXIT.UNAVAILABLE);
      expect(e.message, code).toContain("TLS problem");
      expect(e.message, code).toContain(words);
      expect(e.message, code).toContain(code);
      if (code !== "ERR_SSL_WRONG_VERSION_NUMBER") expect(e.hint, code).toContain("NODE_EXTRA_CA_CERTS");
      expect(e.hint).not.toContain("NODE_TLS_REJECT_UNAUTHORIZED");
    }
  });

  it("keeps anything else UNREACHABLE (retryable) with the socket's own words", () => {
    const e = networkError(
      "http://127.0.0.1:1",
      fetchFailed(sysError("other side closed", "UND_ERR_SOCKET")),
    );
    expect(e.code).toBe("UNREACHABLE");
    expect(e.message).toContain("other side closed");
    expect(e.hint).toContain("https://");
  });
});
