/**
 * The web console's routes (worker/console) but the fleet, usage and admin pages (their own files). Pages answer a person (HTML), so
 * only the status rule and "nothing left behind" apply. See fuzz-routes.ts.
 */
import { fuzzRouteGroup } from "./fuzz-routes.js";

fuzzRouteGroup("console");
