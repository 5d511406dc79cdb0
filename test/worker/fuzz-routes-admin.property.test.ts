/** Secrets, the audit log, admin metrics and the device login. See fuzz-routes.ts. */
import { fuzzRouteGroup } from "./fuzz-routes.js";

fuzzRouteGroup("admin");
