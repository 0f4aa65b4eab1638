// Mocha's spec reporter plus the one summary line CI reads last: `tests: N passed, N failed`.
'use strict';
const Mocha = require('mocha');

class KeelReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      process.nextTick(() => {
        // The skipped count goes on its own line: the last line is exactly `tests: N passed, N failed`.
        if (pending) process.stdout.write(`skipped: ${pending}\n`);
        process.stdout.write(`tests: ${passes} passed, ${failures} failed\n`);
      });
    });
  }
}

module.exports = KeelReporter;
