/**
 * Small stand-in local clients for the relay's cli lane tests: one Node script whose behaviour is
 * named by its first argument (the environment is allow-listed, so argv is the only channel). It
 * answers `--version`, `auth status --json` and `models --json` like a client, and a call (`-p`)
 * as the mode says: an exit-0 error envelope, a non-zero exit, invalid JSON, a hang, a report of
 * its argv / stdin / env / cwd, a stream that fails after a delta, or a wait for a `go` file.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SCRIPT = String.raw`
const fs = require('node:fs');
const [mode, dir, ...rest] = process.argv.slice(2);
const args = rest;
const out = (v) => process.stdout.write(JSON.stringify(v) + '\n');
if (args.includes('--version')) { process.stdout.write('9.9.9 (stand-in)\n'); process.exit(0); }
if (args[0] === 'auth') { out({ loggedIn: mode !== 'logged-out', authMethod: 'none', apiProvider: 'stand-in', email: 'me@example.com', subscriptionType: 'local' }); process.exit(0); }
if (args[0] === 'models') { out({ models: [{ id: 'fake' }, { id: 'other' }] }); process.exit(0); }
const stream = args.includes('stream-json');
let stdin = '';
process.stdin.on('data', (d) => { stdin += d; });
process.stdin.on('end', () => {
  if (dir) fs.appendFileSync(dir + '/calls.log', JSON.stringify({ pid: process.pid, mode, event: 'start', at: Date.now() }) + '\n');
  const usage = { input_tokens: 7, output_tokens: 5 };
  const result = (text, extra = {}) => out({ type: 'result', subtype: 'success', is_error: false, result: text, stop_reason: 'end_turn', usage, ...extra });
  const delta = (text) => out({ type: 'stream_event', event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } } });
  switch (mode) {
    case 'error-envelope':
      out({ type: 'result', subtype: 'error_during_execution', is_error: true, result: 'The model is overloaded right now.', usage });
      process.exit(0);
    case 'exit-with-result':
      out({ type: 'result', subtype: 'error_during_execution', is_error: true, result: 'Credit balance is too low.' });
      process.exit(1);
    case 'exit-with-stderr':
      process.stderr.write('fatal: the client crashed\n');
      process.exit(3);
    case 'invalid-json':
      process.stdout.write('this is not json\n');
      process.exit(0);
    case 'hang':
      if (dir) fs.writeFileSync(dir + '/hang.pid', String(process.pid));
      setInterval(() => {}, 1000);
      return;
    case 'delta-then-hang':
      if (dir) fs.writeFileSync(dir + '/stream-hang.pid', String(process.pid));
      delta('partial ');
      setInterval(() => {}, 1000);
      return;
    case 'delta-then-error':
      delta('partial ');
      out({ type: 'result', subtype: 'error_during_execution', is_error: true, result: 'The client lost its connection.' });
      process.exit(0);
    case 'report': {
      const text = JSON.stringify({ args, stdin, env: process.env, cwd: process.cwd() });
      if (stream) { delta(text); out({ type: 'stream_event', event: { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage } }); }
      result(text, { stop_reason: 'max_tokens' });
      process.exit(0);
    }
    case 'structured':
      if (stream) {
        out({ type: 'stream_event', event: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } });
        out({ type: 'stream_event', event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'prose that must not appear' } } });
        out({ type: 'stream_event', event: { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', name: 'StructuredOutput', input: {} } } });
        out({ type: 'stream_event', event: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":' } } });
        out({ type: 'stream_event', event: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '1}' } } });
        out({ type: 'stream_event', event: { type: 'content_block_stop', index: 1 } });
        out({ type: 'stream_event', event: { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', name: 'StructuredOutput', input: {} } } });
        out({ type: 'stream_event', event: { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"second":true}' } } });
      }
      result('Here is some prose.', { structured_output: { a: 1 } });
      process.exit(0);
    case 'prose-under-schema':
      result('Sure! The answer is one.');
      process.exit(0);
    case 'wait-for-go': {
      const timer = setInterval(() => {
        if (fs.existsSync(dir + '/go')) {
          clearInterval(timer);
          fs.appendFileSync(dir + '/calls.log', JSON.stringify({ pid: process.pid, mode, event: 'end', at: Date.now() }) + '\n');
          result('went');
          process.exit(0);
        }
      }, 50);
      return;
    }
    default:
      result('ok from ' + mode);
      process.exit(0);
  }
});
`;

export interface StandIn {
  /** The folder the stand-in writes `calls.log`, `hang.pid` to and reads `go` from. */
  dir: string;
  /** `cli.command` for a mode. */
  command(mode: string): string[];
}

export function makeStandIn(): StandIn {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relay-cli-standin-'));
  const script = path.join(dir, 'client.cjs');
  writeFileSync(script, SCRIPT);
  return { dir, command: (mode) => [process.execPath, script, mode, dir] };
}
