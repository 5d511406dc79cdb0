// Preloaded with `node --require` by test/node/forgelet-single-file.test.ts: every package the process
// asks require() for, other than Node's own modules and files, is written to $SF_REQUIRE_LOG and refused
// as missing. A single-file bundle asks only for the optional speed-ups its packages probe for.
const Module = require("node:module");
const { appendFileSync } = require("node:fs");

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function guarded(request, ...rest) {
  const bare = !Module.isBuiltin(request) && !/^(\.|\/|file:)/.test(request);
  if (bare) {
    appendFileSync(process.env.SF_REQUIRE_LOG, `${request}\n`);
    throw Object.assign(new Error(`Cannot find module '${request}' (outside the bundle)`), {
      code: "MODULE_NOT_FOUND",
    });
  }
  return resolveFilename.call(this, request, ...rest);
};
