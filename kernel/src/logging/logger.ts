/**
 * The kernel's logger: pino behind the SDK's `Logger` interface. One JSON line per entry
 * (`{"level":"info","time":"<ISO>","app":"keel",...fields,"msg":"..."}`) on stderr or a given
 * sink, levels filtered at the source (pino's `isLevelEnabled`, so a filtered call costs no
 * scrubbing), secrets redacted by field name and scrubbed by value (`redact.ts`) before pino sees
 * the entry.
 */
import { pino, type DestinationStream, type Logger as Pino } from 'pino';
import type { LogFields, Logger } from '@keel/plugin-sdk';
import { scrubFields, scrubText } from './redact.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Receives each entry as one JSON line, without its newline (tests, embedding hosts). */
export type LogSink = (line: string) => void;

export function createLogger(level: LogLevel, base: LogFields = {}, sink?: LogSink): Logger {
  // Synchronous stderr: a line logged just before a crash or exit is not lost.
  const destination: DestinationStream = sink ? { write: (line: string) => sink(line.endsWith('\n') ? line.slice(0, -1) : line) } : pino.destination({ dest: 2, sync: true });
  const root = pino(
    {
      level,
      base: null,
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Errors arrive already serialized (and scrubbed) by scrubFields.
      serializers: { err: (err: unknown) => err },
    },
    destination,
  );
  return wrap(root.child(scrubFields(base) as LogFields));
}

function wrap(log: Pino): Logger {
  const at = (lvl: 'debug' | 'info' | 'warn' | 'error') => (msg: string, fields?: LogFields) => {
    if (!log.isLevelEnabled(lvl)) return;
    // The message goes in as an argument of '%s', so a '%' in it is never read as a format.
    log[lvl](fields ? (scrubFields(fields) as object) : {}, '%s', scrubText(msg));
  };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (fields) => wrap(log.child(scrubFields(fields) as LogFields)),
  };
}
