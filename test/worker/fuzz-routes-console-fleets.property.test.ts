/** The console's fleet and usage pages, and `/`. See fuzz-routes.ts. */
import { fuzzRouteGroup } from "./fuzz-routes.js";

fuzzRouteGroup("console-fleets");
