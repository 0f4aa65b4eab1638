/**
 * Commands plugins add to `keel` (`PluginDefinition.commands`), through the real CLI: listed by
 * `keel --help` from the config's plugins without importing any command module, run with the words
 * left after `--config`/`--data-dir`, booting their plugin (and the plugins it depends on) only when
 * asked; a name two plugins declare, or one the kernel owns, is refused by name.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { runKeel } from './helpers/cli.js';
import { fixturesDir, tempDir } from './helpers/paths.js';

describe('plugin commands on the keel CLI', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.remove());

  const fixture = (name: string) => path.join(fixturesDir, `${name}.js`);
  const configOf = (...plugins: string[]) => {
    const file = path.join(tmp.dir, 'keel.json');
    writeFileSync(file, JSON.stringify({ plugins: plugins.map((p) => ({ use: fixture(p) })) }));
    return file;
  };

  it('keel --help lists the hub command of the default config', async () => {
    const res = await runKeel(['--help']);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.contain('keel hub register <id> [--operator]').and.contain('(plugin hub)');
    expect(res.stdout).to.not.contain('Not listed because');
  });

  it('keel --help lists every command of the config\'s plugins without importing a command module', async () => {
    const config = configOf('cli-greeter-plugin', 'cli-command-plugin');
    const res = await runKeel(['--help', '--config', config]);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.contain(`Commands of the plugins in ${config}`);
    expect(res.stdout).to.contain('keel probe args ... | greet NAME').and.contain('keel broken');
    expect(res.stdout).to.not.contain('keel hub');
    // Running one command does not import the others' modules either.
    const probe = await runKeel(['probe', 'args', '--config', config, '--data-dir', tmp.dir]);
    expect(probe.code, probe.stderr).to.equal(0);
    const broken = await runKeel(['broken', '--config', config, '--data-dir', tmp.dir]);
    expect(broken.code).to.equal(1);
    expect(broken.stderr).to.contain('cli-broken-command was imported');
  });

  it('keel --help still lists the rest when a plugin cannot load, and the kernel\'s commands when the config cannot be read', async () => {
    const file = path.join(tmp.dir, 'keel.json');
    writeFileSync(file, JSON.stringify({ server: { port: 'not a port' }, plugins: [{ use: './absent-plugin.js' }, { use: fixture('cli-greeter-plugin') }, { use: fixture('cli-command-plugin') }] }));
    const partial = await runKeel(['--help', '--config', file]);
    expect(partial.code, partial.stderr).to.equal(0);
    expect(partial.stdout).to.contain('keel probe').and.contain('Not listed because').and.contain(`plugin path '${path.join(tmp.dir, 'absent-plugin.js')}' does not exist`);
    const missing = await runKeel(['--help', '--config', path.join(tmp.dir, 'nope.json')]);
    expect(missing.code).to.equal(0);
    expect(missing.stdout).to.contain('keel serve').and.contain('keel token create').and.contain('nope.json: cannot read the config file');
  });

  it('hands the command its words without --config and --data-dir, and boots its plugin with the ones it depends on', async () => {
    const config = configOf('cli-greeter-plugin', 'cli-command-plugin');
    const dataDir = path.join(tmp.dir, 'data');
    const args = await runKeel(['probe', '--data-dir', dataDir, 'args', 'x', '--flag', `--config=${config}`, '-q']);
    expect(args.code, args.stderr).to.equal(0);
    expect(JSON.parse(args.stdout)).to.deep.equal({ args: ['args', 'x', '--flag', '-q'], dataDir });
    const greet = await runKeel(['probe', 'greet', 'keel', '--config', config, '--data-dir', dataDir]);
    expect(greet.code, greet.stderr).to.equal(0);
    expect(greet.stdout.trim()).to.equal('hello keel (mode cli)');
    const help = await runKeel(['probe', '--help', '--config', config]);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.contain('usage: keel probe args ... | greet NAME');
  });

  it('an unknown command, or a plugin command misused, is a usage error (exit 2)', async () => {
    const config = configOf('cli-greeter-plugin', 'cli-command-plugin');
    const unknown = await runKeel(['frobnicate', '--config', config]);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.contain(`${config} loads no plugin that offers 'frobnicate' (its plugins offer: probe, broken)`).and.contain("Run 'keel --help'");
    const misuse = await runKeel(['probe', 'wave', '--config', config, '--data-dir', tmp.dir]);
    expect(misuse.code).to.equal(2);
    expect(misuse.stderr).to.contain("unknown probe subcommand 'wave'").and.contain('usage: keel probe args ... | greet NAME');
    const noValue = await runKeel(['probe', 'args', '--config']);
    expect(noValue.code).to.equal(2);
    expect(noValue.stderr).to.contain('--config needs a value');
  });

  it('refuses two plugins declaring one command, in the CLI, its help and keel serve', async () => {
    const config = configOf('cli-greeter-plugin', 'cli-command-plugin', 'cli-clash-plugin');
    const clash = "the command 'keel probe' is declared by two plugins: 'cli-probe' (plugins[1]) and 'cli-clash' (plugins[2])";
    const run = await runKeel(['probe', 'args', '--config', config, '--data-dir', tmp.dir]);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.contain(`keel: cannot start: ${clash}`);
    const help = await runKeel(['--help', '--config', config]);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.contain('Not listed because').and.contain(clash);
    const serve = await runKeel(['serve', '--port', '0', '--config', config, '--data-dir', tmp.dir]);
    expect(serve.code).to.equal(1);
    expect(serve.stderr).to.contain(clash);
  });

  it('refuses a plugin that declares a command of the kernel', async () => {
    const config = configOf('cli-reserved-plugin');
    const res = await runKeel(['serve', '--port', '0', '--config', config, '--data-dir', tmp.dir]);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.contain("plugin 'cli-reserved' declares the command 'serve', which is the kernel's own");
  });
});
