/** A job's read-back routes: logs, metrics, hyperparameters, hardware, events, environment, validation, artifacts. See fuzz-routes.ts. */
import { fuzzRouteGroup } from "./fuzz-routes.js";

fuzzRouteGroup("readback");
