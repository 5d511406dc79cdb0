/** Routes of jobs and what they read and write: submits, actions, blobs, the capsule, usage, agents' HTTP routes, read-back. See fuzz-routes.ts. */
import { fuzzRouteGroup } from "./fuzz-routes.js";

fuzzRouteGroup("jobs");
