/** @jsxImportSource hono/jsx */
/** STUB (issue 16, in progress): replaced by the job page (header, actions, tabs). */
import { Hono } from "hono";
import type { ConsoleEnv } from "../api.js";

export const jobPages = new Hono<ConsoleEnv>();
