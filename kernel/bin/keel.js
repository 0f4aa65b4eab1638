#!/usr/bin/env node
// Thin launcher so the `keel` bin works before and after a build links it.
// A command that failed exits with its code even if something it opened lingers (never idle, alive).
const fail = (code) => {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 2000).unref();
};
import('../dist/cli/main.js').then((m) => m.main(process.argv.slice(2))).then(
  (code) => {
    if (code === 0) process.exitCode = 0;
    else if (typeof code === 'number') fail(code);
  },
  (err) => { console.error(err instanceof Error ? err.message : err); fail(1); },
);
