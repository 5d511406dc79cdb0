/**
 * The web console's routes (worker/console), and `/` that leads to them. Pages answer a person (HTML), so
 * only the status rule and "nothing left behind" apply. See fuzz-routes.ts.
 */
import { fuzzRouteGroup } from "./fuzz-routes.js";

fuzzRouteGroup("console");
