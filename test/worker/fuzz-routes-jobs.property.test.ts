/** Routes of jobs and what they write: submits, actions, blobs, the capsule, usage, agents' HTTP routes (read-back is fuzz-routes-readback). See fuzz-routes.ts. */
import { fuzzRouteGroup } from "./fuzz-routes.js";

fuzzRouteGroup("jobs");
