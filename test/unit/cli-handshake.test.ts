/**
 * sf's side of the version handshake (contract/version.ts) as pure functions: which headers make an
 * answer refused and with which code, exit and words; a 426 body; what is NOT_STARFORGE; timeout settings.
 */
import { describe, expect, it } from "vitest";
import { handshakeError, readJson, serverVersions, timeoutsFromEnv } from "../../cli/api.js";
import { CliError, EXIT } from "../../cli/errors.js";
import { MIN_SERVER_API_VERSION, VERSION_HEADERS } from "../../contract/version.js";

const URL_ = "http://127.0.0.1:8787";

function headers(h: Record<string, string>): Headers {
  return new Headers(h);
}

describe("serverVersions", () => {
  it("reads the three headers and ignores malformed ones", () => {
    expect(
      serverVersions(
        headers({
          [VERSION_HEADERS.api]: "1",
          [VERSION_HEADERS.minCli]: "0.1.0",
          [VERSION_HEADERS.server]: "0.2.0",
        }),
      ),
    ).toEqual({ api: 1, minCli: "0.1.0", server: "0.2.0" });
    expect(
      serverVersions(headers({ [VERSION_HEADERS.api]: "v1", [VERSION_HEADERS.minCli]: "soon" })),
    ).toEqual({
      api: null,
      minCli: null,
      server: null,
    });
  });
});

describe("handshakeError", () => {
  it("refuses this sf when the server's minimum is newer: CLI_TOO_OLD, exit 8, upgrade sf", () => {
    const e = handshakeError(URL_, { api: 1, minCli: "0.10.0", server: "0.10.2" }, "0.9.9");
    expect(e).toBeInstanceOf(CliError);
    expect(e?.code).toBe("CLI_TOO_OLD");
    expect(e?.exit).toBe(EXIT.INCOMPATIBLE);
    expect(e?.exit).toBe(8);
    expect(e?.message).toBe(
      `this sf (0.9.9) is older than the oldest the server at ${URL_} supports (0.10.0): upgrade sf`,
    );
    expect(e?.hint).toContain("0.10.2");
    expect(e?.hint).toContain("npm run build");
  });

  it("accepts an sf equal to or newer than the minimum, compared numerically", () => {
    expect(handshakeError(URL_, { api: 1, minCli: "0.1.0", server: null }, "0.1.0")).toBeNull();
    expect(handshakeError(URL_, { api: 1, minCli: "0.9.0", server: null }, "0.10.0")).toBeNull();
  });

  it("refuses a server older than the API this sf needs: SERVER_TOO_OLD, exit 8", () => {
    const e = handshakeError(URL_, { api: MIN_SERVER_API_VERSION - 1, minCli: null, server: null });
    expect(e?.code).toBe("SERVER_TOO_OLD");
    expect(e?.exit).toBe(8);
    expect(e?.message).toBe(
      `the server at ${URL_} speaks API v${MIN_SERVER_API_VERSION - 1}; this sf needs v${MIN_SERVER_API_VERSION}: upgrade the server or use an older sf`,
    );
  });

  it("gives a server that states nothing the benefit of the doubt", () => {
    expect(handshakeError(URL_, { api: null, minCli: null, server: null }, "0.0.1")).toBeNull();
  });
});

describe("readJson", () => {
  const res = (status: number, body: string, h: Record<string, string> = {}) => {
    const r = new Response(body, { status, headers: h });
    Object.defineProperty(r, "url", { value: `${URL_}/v1/me` });
    return r;
  };
  const fails = async (r: Response) => {
    try {
      await readJson(r);
    } catch (err) {
      return err as CliError;
    }
    throw new Error("readJson did not fail");
  };

  it("calls an HTML page without the version headers NOT_STARFORGE (exit 6) and asks about the URL", async () => {
    const e = await fails(res(200, "<html>hello</html>", { "content-type": "text/html" }));
    expect(e.code).toBe("NOT_STARFORGE");
    expect(e.exit).toBe(EXIT.UNAVAILABLE);
    expect(e.message).toContain("an HTML page");
    expect(e.hint).toContain("is this the control plane's URL?");
  });

  it("calls a foreign JSON 404 NOT_STARFORGE, but keeps a coded error of ours", async () => {
    expect((await fails(res(404, '{"message":"Not Found"}'))).code).toBe("NOT_STARFORGE");
    const ours = await fails(res(404, '{"error":{"code":"JOB_NOT_FOUND","message":"no job j1"}}'));
    expect(ours.code).toBe("JOB_NOT_FOUND");
    expect(ours.exit).toBe(EXIT.NOT_FOUND);
  });

  it("keeps a proxy's 5xx a server fault (exit 6), not a wrong URL", async () => {
    const e = await fails(res(502, "<html>bad gateway</html>", { "content-type": "text/html" }));
    expect(e.code).not.toBe("NOT_STARFORGE");
    expect(e.exit).toBe(EXIT.UNAVAILABLE);
  });

  it("trusts a non-JSON answer that states the API version (it is ours)", async () => {
    const e = await fails(res(400, "nope", { [VERSION_HEADERS.api]: "1" }));
    expect(e.code).not.toBe("NOT_STARFORGE");
  });

  it("maps a 426 to exit 8", async () => {
    const e = await fails(
      res(426, '{"error":{"code":"CLI_TOO_OLD","message":"upgrade","details":{"min_cli_version":"9.0.0"}}}'),
    );
    expect(e.code).toBe("CLI_TOO_OLD");
    expect(e.exit).toBe(EXIT.INCOMPATIBLE);
  });
});

describe("timeoutsFromEnv", () => {
  it("defaults to 60 s each and takes fractions of seconds", () => {
    expect(timeoutsFromEnv({})).toEqual({ totalMs: 60_000, idleMs: 60_000 });
    expect(timeoutsFromEnv({ SF_HTTP_TIMEOUT_SECONDS: "0.5", SF_HTTP_IDLE_TIMEOUT_SECONDS: "90" })).toEqual({
      totalMs: 500,
      idleMs: 90_000,
    });
  });

  it("refuses a value that is not a positive number with BAD_ENV (exit 2)", () => {
    for (const bad of ["abc", "0", "-3", "Infinity"]) {
      let err: unknown;
      try {
        timeoutsFromEnv({ SF_HTTP_TIMEOUT_SECONDS: bad });
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(CliError);
      expect((err as CliError).code).toBe("BAD_ENV");
      expect((err as CliError).exit).toBe(EXIT.USAGE);
      expect((err as CliError).message).toContain("SF_HTTP_TIMEOUT_SECONDS");
    }
  });
});
