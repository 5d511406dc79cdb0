/** Routes of webhooks: endpoints, their secrets, test sends, deliveries and redeliveries. See fuzz-routes.ts. */
import { fuzzRouteGroup } from "./fuzz-routes.js";

fuzzRouteGroup("webhooks");
