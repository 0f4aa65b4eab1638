/** A small structured logger: one JSON line per entry on stderr, levels filtered at the source. */
import type { LogFields, Logger } from '@keel/plugin-sdk';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type LogSink = (line: string) => void;

const stderrSink: LogSink = (line) => process.stderr.write(line + '\n');

export function createLogger(level: LogLevel, base: LogFields = {}, sink: LogSink = stderrSink): Logger {
  const threshold = RANK[level];
  const write = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields) => {
    if (RANK[lvl] < threshold) return;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level: lvl, msg, ...base, ...fields };
    const err = entry.err;
    if (err instanceof Error) entry.err = { name: err.name, message: err.message, stack: err.stack };
    sink(JSON.stringify(entry));
  };
  return {
    debug: (msg, fields) => write('debug', msg, fields),
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
    child: (fields) => createLogger(level, { ...base, ...fields }, sink),
  };
}
