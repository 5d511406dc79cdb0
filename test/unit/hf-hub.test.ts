/**
 * The HuggingFace preflight client against the Hub stub, case by case: what a submitter is told for each
 * answer the Hub gives (the code sf switches on, the HTTP status, and the words a user acts on: where to
 * ask for access, how to set a token), and that the token goes to the hub endpoint and nowhere else.
 */
import { describe, expect, it } from "vitest";
import { AppError } from "../../worker/errors.js";
import { type HubCheckOptions, type HubVerdict, httpHubClient } from "../../worker/services/hf-hub.js";
import { createHubStub, type HubRepo, type HubStubOptions } from "../support/hf-hub-stub.js";

const ENDPOINT = "https://hub.test";
const GRANTED = "hf_granted";
const NOT_GRANTED = "hf_someone_else";

const REPOS: HubRepo[] = [
  { kind: "model", id: "acme/public-7b", revisions: ["main", "v1"] },
  { kind: "model", id: "acme/gated-70b", gated: "manual", grantedTokens: [GRANTED] },
  { kind: "model", id: "acme/auto-gated-8b", gated: "auto", grantedTokens: [GRANTED] },
  { kind: "model", id: "acme/private-1b", private: true, grantedTokens: [GRANTED] },
  { kind: "dataset", id: "acme/corpus", revisions: ["main", "v2"] },
  { kind: "dataset", id: "acme/gated-corpus", gated: "auto", grantedTokens: [GRANTED] },
  { kind: "dataset", id: "acme/private-corpus", private: true, grantedTokens: [GRANTED] },
];

function hub(opts?: HubStubOptions) {
  const stub = createHubStub(REPOS, opts);
  return { stub, client: httpHubClient(ENDPOINT, stub.fetch) };
}

/** The AppError a check rejects with, after asserting its code and HTTP status. */
async function refused(verdict: Promise<HubVerdict>, status: number, code: string): Promise<AppError> {
  const err = await verdict.then(
    (v) => new Error(`expected ${code}, got verdict ${JSON.stringify(v)}`),
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw err;
  expect({ code: err.code, status: err.status }).toEqual({ code, status });
  return err;
}

const noToken: HubCheckOptions = {};
const granted: HubCheckOptions = { token: GRANTED };
const notGranted: HubCheckOptions = { token: NOT_GRANTED };

describe("a public repo", () => {
  it("passes with one metadata call at the requested revision, main by default", async () => {
    const { stub, client } = hub();
    expect(await client.check("model", "acme/public-7b", "v1", noToken)).toEqual({
      checked: true,
      gated: false,
    });
    expect(await client.check("model", "acme/public-7b", undefined, granted)).toEqual({
      checked: true,
      gated: false,
    });
    expect(stub.requests).toEqual([
      "/api/models/acme/public-7b/revision/v1",
      "/api/models/acme/public-7b/revision/main",
    ]);
  });

  it("rejects a revision the repo lacks with HF_REVISION_NOT_FOUND, naming the revision", async () => {
    const { client } = hub();
    const err = await refused(
      client.check("model", "acme/public-7b", "v9", noToken),
      422,
      "HF_REVISION_NOT_FOUND",
    );
    expect(err.message).toContain("acme/public-7b");
    expect(err.message).toContain('"v9"');
    expect(err.details).toEqual({ kind: "model", repo: "acme/public-7b", revision: "v9" });
  });
});

describe("a gated repo (metadata public, files refused)", () => {
  for (const repo of ["acme/gated-70b", "acme/auto-gated-8b"]) {
    it(`${repo}: without a token, HF_TOKEN_REQUIRED says how to set one and where access is granted`, async () => {
      const { stub, client } = hub();
      const err = await refused(client.check("model", repo, undefined, noToken), 422, "HF_TOKEN_REQUIRED");
      expect(err.message).toContain(`${repo} is gated`);
      expect(err.message).toContain("`sf secret set HF_TOKEN`");
      expect(err.message).toContain(`${ENDPOINT}/${repo}`);
      // No token, no account: the answer is known without asking the hub about files.
      expect(stub.requests).toEqual([`/api/models/${repo}/revision/main`]);
    });

    it(`${repo}: with a token not granted access, HF_ACCESS_DENIED says where to request it`, async () => {
      const { stub, client } = hub();
      const err = await refused(client.check("model", repo, undefined, notGranted), 422, "HF_ACCESS_DENIED");
      expect(err.message).toContain(`request access at ${ENDPOINT}/${repo}`);
      expect(err.details).toMatchObject({ access_url: `${ENDPOINT}/${repo}` });
      expect(stub.requests).toEqual([`/api/models/${repo}/revision/main`, `/api/models/${repo}/auth-check`]);
    });

    it(`${repo}: with a granted token, passes and reports the repo as gated`, async () => {
      const { client } = hub();
      expect(await client.check("model", repo, undefined, granted)).toEqual({ checked: true, gated: true });
    });
  }

  it("checks the revision before access: a gated repo's missing revision is HF_REVISION_NOT_FOUND", async () => {
    const { client } = hub();
    await refused(client.check("model", "acme/gated-70b", "nope", noToken), 422, "HF_REVISION_NOT_FOUND");
  });
});

describe("a private or missing repo (the Hub answers both alike)", () => {
  it("without a token, HF_NOT_FOUND suggests setting one", async () => {
    const { client } = hub();
    for (const repo of ["acme/private-1b", "acme/missing"]) {
      const err = await refused(client.check("model", repo, undefined, noToken), 422, "HF_NOT_FOUND");
      expect(err.message).toContain(`${repo} does not exist, or it is private`);
      expect(err.message).toContain("`sf secret set HF_TOKEN`");
      expect(err.details).toEqual({ kind: "model", repo, revision: "main" });
    }
  });

  it("with a token that cannot see it, HF_NOT_FOUND says the token cannot see it", async () => {
    const { client } = hub();
    for (const repo of ["acme/private-1b", "acme/missing"]) {
      const err = await refused(client.check("model", repo, undefined, notGranted), 422, "HF_NOT_FOUND");
      expect(err.message).toContain("your HF_TOKEN cannot see it");
    }
  });

  it("with a token that can see the private repo, passes", async () => {
    const { client } = hub();
    expect(await client.check("model", "acme/private-1b", undefined, granted)).toEqual({
      checked: true,
      gated: false,
    });
  });
});

describe("datasets", () => {
  it("are checked under /api/datasets and pass when public, at their revision", async () => {
    const { stub, client } = hub();
    expect(await client.check("dataset", "acme/corpus", "v2", noToken)).toEqual({
      checked: true,
      gated: false,
    });
    expect(stub.requests).toEqual(["/api/datasets/acme/corpus/revision/v2"]);
  });

  it("point to /datasets/{repo} for access to a gated one", async () => {
    const { stub, client } = hub();
    const url = `${ENDPOINT}/datasets/acme/gated-corpus`;
    const missing = await refused(
      client.check("dataset", "acme/gated-corpus", undefined, noToken),
      422,
      "HF_TOKEN_REQUIRED",
    );
    expect(missing.message).toContain(url);
    const denied = await refused(
      client.check("dataset", "acme/gated-corpus", undefined, notGranted),
      422,
      "HF_ACCESS_DENIED",
    );
    expect(denied.message).toContain(`request access at ${url}`);
    expect(await client.check("dataset", "acme/gated-corpus", undefined, granted)).toEqual({
      checked: true,
      gated: true,
    });
    expect(stub.requests).toContain("/api/datasets/acme/gated-corpus/auth-check");
  });

  it("refuse a private, missing or unknown-revision dataset with the model codes", async () => {
    const { client } = hub();
    await refused(client.check("dataset", "acme/private-corpus", undefined, noToken), 422, "HF_NOT_FOUND");
    await refused(client.check("dataset", "acme/private-corpus", undefined, notGranted), 422, "HF_NOT_FOUND");
    expect(await client.check("dataset", "acme/private-corpus", undefined, granted)).toMatchObject({
      checked: true,
    });
    await refused(client.check("dataset", "acme/no-corpus", undefined, granted), 422, "HF_NOT_FOUND");
    const err = await refused(
      client.check("dataset", "acme/corpus", "v9", noToken),
      422,
      "HF_REVISION_NOT_FOUND",
    );
    expect(err.message).toContain("dataset acme/corpus");
  });
});

describe("a token the Hub does not know", () => {
  it("is HF_TOKEN_REQUIRED saying the token was rejected, even for a public repo", async () => {
    const { client } = hub({ validTokens: [GRANTED] });
    const err = await refused(
      client.check("model", "acme/public-7b", undefined, { token: "hf_expired" }),
      422,
      "HF_TOKEN_REQUIRED",
    );
    expect(err.message).toContain("rejected your HF_TOKEN");
    expect(err.message).toContain("`sf secret set HF_TOKEN`");
    expect(err.message).not.toContain("hf_expired");
  });
});

describe("an unavailable hub", () => {
  it("refuses with HF_UNAVAILABLE (503, try again) by default and when closed", async () => {
    const { stub, client } = hub();
    stub.down = true;
    for (const opts of [noToken, { onUnavailable: "closed" } as const]) {
      const err = await refused(
        client.check("model", "acme/public-7b", undefined, opts),
        503,
        "HF_UNAVAILABLE",
      );
      expect(err.message).toContain("HTTP 503");
      expect(err.message).toContain("try again");
    }
  });

  it("when open, resolves with a skipped verdict saying why", async () => {
    const { stub, client } = hub();
    stub.down = true;
    const v = await client.check("model", "acme/gated-70b", undefined, { onUnavailable: "open" });
    expect(v).toMatchObject({ checked: false, reason: expect.stringContaining("HTTP 503") });
  });

  it("when open, still refuses what the hub did answer: open skips only an unavailable hub", async () => {
    const { client } = hub();
    const open = { onUnavailable: "open" } as const;
    await refused(client.check("model", "acme/missing", undefined, open), 422, "HF_NOT_FOUND");
    await refused(client.check("model", "acme/gated-70b", undefined, open), 422, "HF_TOKEN_REQUIRED");
  });

  it("treats a refused connection like a 503: closed refuses, open skips", async () => {
    const { stub, client } = hub();
    stub.unreachable = true;
    const err = await refused(
      client.check("model", "acme/public-7b", undefined, noToken),
      503,
      "HF_UNAVAILABLE",
    );
    expect(err.message).toContain("could not be reached");
    expect(err.message).toContain("try again");
    expect(await client.check("model", "acme/public-7b", undefined, { onUnavailable: "open" })).toMatchObject(
      {
        checked: false,
      },
    );
  });

  it("says so when the hub does not answer within the 10 s deadline", async () => {
    const client = httpHubClient(ENDPOINT, async () => {
      throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
    });
    const err = await refused(
      client.check("model", "acme/public-7b", undefined, noToken),
      503,
      "HF_UNAVAILABLE",
    );
    expect(err.message).toContain("within 10 s");
  });

  it("treats rate limiting (429) and a hub failing mid-check as unavailable", async () => {
    const limited = httpHubClient(ENDPOINT, async () => new Response("slow down", { status: 429 }));
    await refused(limited.check("model", "acme/public-7b", undefined, noToken), 503, "HF_UNAVAILABLE");

    // The metadata call succeeds; the hub goes down before the access check.
    const { stub } = hub();
    const client = httpHubClient(ENDPOINT, async (input, init) => {
      const res = await stub.fetch(input, init);
      stub.down = true;
      return res;
    });
    await refused(client.check("model", "acme/gated-70b", undefined, granted), 503, "HF_UNAVAILABLE");
  });
});

describe("the token", () => {
  /** Every request the client made, with the Authorization header it carried. */
  function recording(answer: (req: Request) => Promise<Response>) {
    const seen: { url: string; authorization: string | null }[] = [];
    const fetcher: typeof fetch = async (input, init) => {
      const req = new Request(input, init);
      seen.push({ url: req.url, authorization: req.headers.get("authorization") });
      return answer(req);
    };
    return { seen, fetcher };
  }

  it("is sent as a bearer token to the hub endpoint, and no Authorization header goes without one", async () => {
    const { stub } = hub();
    const { seen, fetcher } = recording((req) => stub.fetch(req));
    const client = httpHubClient(`${ENDPOINT}/`, fetcher);
    await client.check("model", "acme/gated-70b", undefined, granted);
    await client.check("dataset", "acme/corpus", undefined, noToken);
    expect(seen).toEqual([
      { url: `${ENDPOINT}/api/models/acme/gated-70b/revision/main`, authorization: `Bearer ${GRANTED}` },
      { url: `${ENDPOINT}/api/models/acme/gated-70b/auth-check`, authorization: `Bearer ${GRANTED}` },
      { url: `${ENDPOINT}/api/datasets/acme/corpus/revision/main`, authorization: null },
    ]);
  });

  it("follows a redirect within the hub (a renamed repo) but never one to another host", async () => {
    const { stub } = hub();
    const { seen, fetcher } = recording(async (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/api/models/acme/old-name/revision/main") {
        return new Response(null, {
          status: 307,
          headers: { location: "/api/models/acme/public-7b/revision/main" },
        });
      }
      if (path === "/api/models/acme/elsewhere/revision/main") {
        return new Response(null, { status: 302, headers: { location: "https://cdn.example/steal" } });
      }
      return stub.fetch(req);
    });
    const client = httpHubClient(ENDPOINT, fetcher);
    expect(await client.check("model", "acme/old-name", undefined, granted)).toEqual({
      checked: true,
      gated: false,
    });
    await refused(client.check("model", "acme/elsewhere", undefined, granted), 503, "HF_UNAVAILABLE");
    expect(seen.map((s) => new URL(s.url).origin)).toEqual(Array(3).fill(ENDPOINT));
  });
});

describe("the hub stub's download route", () => {
  it("answers HEAD resolve as auth-check does, under /datasets for datasets", async () => {
    const stub = createHubStub(REPOS);
    const head = async (path: string, token?: string) => {
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      const res = await stub.fetch(`${ENDPOINT}${path}`, { method: "HEAD", headers });
      return [res.status, res.headers.get("x-error-code")];
    };
    expect(await head("/acme/gated-70b/resolve/main/README.md")).toEqual([401, "GatedRepo"]);
    expect(await head("/acme/gated-70b/resolve/main/README.md", NOT_GRANTED)).toEqual([403, "GatedRepo"]);
    expect(await head("/acme/gated-70b/resolve/main/README.md", GRANTED)).toEqual([200, null]);
    expect(await head("/datasets/acme/gated-corpus/resolve/main/README.md", GRANTED)).toEqual([200, null]);
    expect(await head("/acme/public-7b/resolve/v9/README.md")).toEqual([404, "RevisionNotFound"]);
    expect(await head("/acme/public-7b/resolve/main/nope.bin")).toEqual([404, "EntryNotFound"]);
    expect(await head("/acme/private-1b/resolve/main/README.md")).toEqual([401, "RepoNotFound"]);
  });
});
