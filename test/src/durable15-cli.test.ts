/**
 * `keel automations run-now|pause|resume` (issue 15 item 8) against the data dir of a RUNNING
 * server (and of a `--no-runner` server with its `keel runner`): the CLI process only records the
 * command in LMDB; the engine of the process that executes runs picks it up by its poll
 * (`scheduler.pollMs`) and the occurrence runs there once.
 */
import { expect } from 'chai';
import { runKeel } from './helpers/cli.js';
import { ServedKeel, until } from './helpers/gateway-runs.js';
import { durableApi, durablePlugins, echoFlow, expectRowsMatchRuns, untilRows } from './helpers/durable15.js';

const manual = { source_id: 'manual', source_version: 1, config: {} };

for (const flags of [[], ['--no-runner']]) {
  describe(`durable15: keel automations run-now against a running keel serve ${flags.join(' ')}`.trim(), function () {
    this.timeout(240_000);
    const keel = new ServedKeel();
    const api = durableApi(keel);
    after(() => keel.dispose());
    const cli = async (...args: string[]) => {
      const out = await runKeel(['automations', ...args, '--config', keel.configFile, '--data-dir', keel.dataDir]);
      expect(out.code, `keel automations ${args.join(' ')}: ${out.stderr}${out.stdout}`).to.equal(0);
      return JSON.parse(out.stdout) as { accepted: boolean; duplicate: boolean };
    };

    it('the engine of the running process picks the recorded commands up: run-now runs once, also while paused by the CLI', async () => {
      keel.configure(durablePlugins(200));
      await keel.start(flags);
      if (flags.length) await keel.startRunner();
      await api.upload('echo', echoFlow);
      const id = await api.create('cli-live', 'echo', manual);

      expect(await cli('run-now', id, '--command-id', 'cli-now-1')).to.include({ accepted: true, duplicate: false });
      const [first] = await untilRows(api, id, 'the CLI run-now to run in the running process', (r) => r.length === 1 && r[0]!.status === 'completed');
      expect(first!.trigger.source_id).to.equal('manual');
      // The same command id again is a duplicate: nothing more runs.
      expect(await cli('run-now', id, '--command-id', 'cli-now-1')).to.include({ duplicate: true });

      expect((await cli('pause', id)).accepted).to.equal(true);
      await until(() => api.summary(id), { what: 'the server to read the pause', ok: (s) => s.status === 'paused' });
      expect((await cli('run-now', id)).accepted).to.equal(true);
      await untilRows(api, id, 'the CLI run-now while paused to run', (r) => r.length === 2 && r[1]!.status === 'completed');
      expect((await api.summary(id)).status, 'run-now leaves it paused').to.equal('paused');
      expect((await cli('resume', id)).accepted).to.equal(true);
      await until(() => api.summary(id), { what: 'the server to read the resume', ok: (s) => s.status === 'active' });

      const rows = await api.occurrences(id);
      expect(rows).to.have.length(2);
      expectRowsMatchRuns(rows, await api.runs(id));
    });
  });
}
