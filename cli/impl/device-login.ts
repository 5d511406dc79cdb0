/**
 * `sf login` without a token: the device flow (RFC 8628 shapes, docs/api.md "Device login"). Prints the
 * code and the page's URL (it opens nothing: the browser may be on another machine), polls at the
 * server's interval with a spinner on a TTY, and returns the new token. Ctrl-C exits 130.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { DeviceStarted, DeviceToken } from "../../contract/responses.schema.js";
import { Api, route } from "../api.js";
import { CliError, EXIT } from "../errors.js";
import { c, withSpinner } from "../output.js";

/** Gives up after this many unreachable polls in a row (a restart of the server is fine, an outage is not). */
const MAX_UNREACHABLE = 5;

export async function deviceLogin(server: string): Promise<string> {
  const api = new Api(server, null);
  const started = await api.post(route("/v1/auth/device"), DeviceStarted);
  const onSigint = () => {
    if (process.stderr.isTTY) process.stderr.write("\r\x1b[2K");
    process.stderr.write("login cancelled\n");
    process.exit(EXIT.INTERRUPTED);
  };
  // Before the code is shown: a Ctrl-C right after it must already exit 130.
  process.on("SIGINT", onSigint);
  // Always on stderr, even with --json: the person has to see the code to log in at all.
  process.stderr.write(
    `To log in, open ${c.bold(started.verification_uri)} in a browser and enter the code ${c.bold(started.user_code)}\n` +
      `  (or open ${started.verification_uri_complete})\n` +
      `You approve with one of your existing personal access tokens; sf then gets a new one of its own.\n`,
  );
  try {
    return await withSpinner(`waiting for approval of ${started.user_code}…`, () => poll(api, started));
  } finally {
    process.off("SIGINT", onSigint);
  }
}

async function poll(api: Api, started: DeviceStarted): Promise<string> {
  const deadline = Date.now() + started.expires_in * 1000;
  let interval = started.interval;
  let unreachable = 0;
  for (;;) {
    await sleep(interval * 1000);
    try {
      const r = await api.post(route("/v1/auth/device/token"), DeviceToken, {
        device_code: started.device_code,
      });
      return r.token;
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      switch (err.code) {
        case "AUTHORIZATION_PENDING":
          unreachable = 0;
          break;
        case "SLOW_DOWN":
          unreachable = 0;
          interval = intervalFrom(err.details) ?? interval + 5;
          break;
        case "ACCESS_DENIED":
          throw new CliError(`login denied: ${err.message}`, { code: err.code, exit: EXIT.AUTH });
        case "EXPIRED_TOKEN":
        case "INVALID_GRANT":
          throw new CliError(`login failed: ${err.message}`, {
            code: err.code,
            exit: EXIT.AUTH,
            hint: "run `sf login` again",
          });
        case "UNREACHABLE":
          if (++unreachable >= MAX_UNREACHABLE) throw err;
          break;
        default:
          throw err;
      }
    }
    if (Date.now() + interval * 1000 > deadline) {
      throw new CliError("the code expired before it was approved", {
        code: "EXPIRED_TOKEN",
        exit: EXIT.AUTH,
        hint: "run `sf login` again",
      });
    }
  }
}

function intervalFrom(details: unknown): number | null {
  const r = z.object({ interval: z.number().positive() }).safeParse(details);
  return r.success ? r.data.interval : null;
}
