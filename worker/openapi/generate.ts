/** The document of the app as it is built: what `npm run gen:openapi` writes and the Worker tier checks. */
import { createApp } from "../app.js";
import { buildDocument } from "./document.js";

export function generateDocument(): Promise<Record<string, unknown>> {
  return buildDocument(createApp());
}
