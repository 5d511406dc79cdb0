/**
 * GET /v1/openapi.json: the OpenAPI 3.1 document of this API (contract/openapi.json, generated from the
 * routes by `npm run gen:openapi`; test/worker/openapi.test.ts fails when it is not current). Public, like
 * /v1/health: a client generator or a gateway reads it before it has a token.
 */
import { Hono } from "hono";
import { z } from "zod";
import { sha256Hex } from "../../contract/digest.js";
import document from "../../contract/openapi.json";
import type { Env } from "../auth/middleware.js";
import { ifNoneMatch } from "../http.js";
import { describe } from "../openapi/describe.js";

/** The document's text and ETag, made on the first request (a megabyte: not at every isolate's start-up). */
let served: Promise<{ text: string; etag: string }> | null = null;
const serve = () => {
  const text = JSON.stringify(document);
  return sha256Hex(text).then((h) => ({ text, etag: `"${h.slice(0, 32)}"` }));
};

export const openapiRoutes = new Hono<Env>().get(
  "/openapi.json",
  describe({
    id: "getOpenApiDocument",
    tag: "Health",
    summary: "This OpenAPI document",
    description:
      "The document of the API this server serves (`info.version` is its release). Cacheable: answers " +
      "carry an ETag and `If-None-Match` gets 304.",
    auth: "none",
    headers: { "If-None-Match": { description: "The ETag of the copy you hold" } },
    ok: {
      200: {
        description: "An OpenAPI 3.1 document",
        json: z.looseObject({
          openapi: z.string().describe("The OpenAPI version the document follows, `3.1.0`"),
          info: z
            .looseObject({ version: z.string().describe("The server's release, e.g. `0.1.0`") })
            .describe("The API's title, description and release"),
        }),
      },
      304: { description: "Not modified since the ETag sent" },
    },
  }),
  async (c) => {
    served ??= serve();
    const { text, etag: tag } = await served;
    c.header("ETag", tag);
    c.header("Cache-Control", "public, max-age=300");
    if (ifNoneMatch(c.req.header("if-none-match"), tag)) return c.body(null, 304);
    return c.body(text, 200, { "content-type": "application/json; charset=UTF-8" });
  },
);
