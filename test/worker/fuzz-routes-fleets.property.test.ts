/** Routes of fleets: fleets, their nodes, secrets, enrollment tokens and maintenance. See fuzz-routes.ts. */
import { fuzzRouteGroup } from "./fuzz-routes.js";

fuzzRouteGroup("fleets");
