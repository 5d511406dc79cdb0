/** @jsxImportSource hono/jsx */
/** STUB (issue 16, in progress): replaced by the fleets page. */
import { Hono } from "hono";
import type { ConsoleEnv } from "../api.js";

export const fleetPages = new Hono<ConsoleEnv>();
