/**
 * Every other route (users, tokens, catalog, profiles, health, the document), and any route
 * added outside the named groups. See fuzz-routes.ts.
 */
import { fuzzRouteGroup } from "./fuzz-routes.js";

fuzzRouteGroup("rest");
