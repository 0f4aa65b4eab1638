#!/usr/bin/env node
// Thin launcher so the `keel` bin works before and after a build links it.
import('../dist/cli/main.js').then((m) => m.main(process.argv.slice(2))).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => { console.error(err instanceof Error ? err.message : err); process.exitCode = 1; },
);
