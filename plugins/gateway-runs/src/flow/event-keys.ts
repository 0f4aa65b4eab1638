/**
 * Event wait keys (reference §3.2, RN §7.1): `evt:<scope>:<scope id>:<name>`. The scope id of a
 * `session` event is the target session (else the run's session, else its run id); `workflow` is
 * the run's workflow id, `run` its run id, `global` the word itself. An unknown scope is `session`.
 */
/** What a key needs of the run it is built for. */
export interface EventRun {
  run_id: string;
  session_id: string | null;
  workflow_id: string;
}

export type EventScope = 'session' | 'workflow' | 'run' | 'global';

export function eventScope(raw: unknown): EventScope {
  const scope = String(raw ?? 'session').trim().toLowerCase();
  return scope === 'workflow' || scope === 'run' || scope === 'global' ? scope : 'session';
}

export function eventScopeId(run: EventRun, scope: EventScope, targetSession?: string | null): string {
  switch (scope) {
    case 'global':
      return 'global';
    case 'workflow':
      return run.workflow_id;
    case 'run':
      return run.run_id;
    default:
      return targetSession || run.session_id || run.run_id;
  }
}

export function eventWaitKey(run: EventRun, scope: EventScope, name: string, targetSession?: string | null): string {
  return `evt:${scope}:${eventScopeId(run, scope, targetSession)}:${name}`;
}
