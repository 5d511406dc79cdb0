/** The web console's admin pages (worker/console/pages/admin.tsx). See fuzz-routes.ts and fuzz-routes-console. */
import { fuzzRouteGroup } from "./fuzz-routes.js";

fuzzRouteGroup("console-admin");
