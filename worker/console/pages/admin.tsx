/** @jsxImportSource hono/jsx */
/** STUB (issue 16, in progress): replaced by the admin page. */
import { Hono } from "hono";
import type { ConsoleEnv } from "../api.js";

export const adminPages = new Hono<ConsoleEnv>();
