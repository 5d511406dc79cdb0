/** Teams (members, quotas, budgets) and priority classes: changes every fleet must take. See fuzz-routes.ts. */
import { fuzzRouteGroup } from "./fuzz-routes.js";

fuzzRouteGroup("teams");
