/** @jsxImportSource hono/jsx */
/** STUB (issue 16, in progress): replaced by the usage page. */
import { Hono } from "hono";
import type { ConsoleEnv } from "../api.js";

export const usagePages = new Hono<ConsoleEnv>();
