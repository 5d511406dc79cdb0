/**
 * Every other route (users, tokens, catalog, profiles, secrets, audit, device login, health), and any route
 * added outside the named groups. See fuzz-routes.ts.
 */
import { fuzzRouteGroup } from "./fuzz-routes.js";

fuzzRouteGroup("rest");
