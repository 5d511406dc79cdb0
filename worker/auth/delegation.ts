/**
 * In-process calls to the /v1 API on behalf of someone already authenticated another way (the web
 * console's session cookie). The console builds an ordinary Request, tags it here with the principal the
 * session stands for, and hands it to the same Hono app; `authenticate` accepts a tagged request as it
 * would a bearer token. The tag lives in a module-private WeakMap keyed by the Request object, so nothing
 * a client sends (no header, no cookie) can forge it, and /v1 stays bearer-only from outside.
 */
import type { Principal } from "./principal.js";

const delegated = new WeakMap<Request, Principal>();

/** Marks `req` as sent by `principal`; returns it for chaining. */
export function delegate(req: Request, principal: Principal): Request {
  delegated.set(req, principal);
  return req;
}

/** The principal a console request was tagged with, or undefined for a request from the network. */
export function delegatedPrincipal(req: Request): Principal | undefined {
  return delegated.get(req);
}
