/**
 * The automations' claim on `POST /api/gateway/commands` (seed 000 §4.4, reference §3.7): the
 * `automation.*` types with `run_id` = an automation id are the same commands as
 * `POST /automations/{id}/commands` (404 `automation_not_found` when the id is none of the caller's
 * automations); the run types aimed at one of the caller's automations are 409 `invalid_state`.
 * Anything else is left to the runs.
 */
import type { CommandTarget } from '@keel/plugin-gateway-runs';
import type { Automations } from '../automations.js';
import { automationError } from '../errors.js';

export function automationCommandTarget(automations: Automations): CommandTarget {
  return (command, principal) => {
    if (command.type.startsWith('automation.')) {
      return automations.command(principal, command.run_id, { command_id: command.command_id, type: command.type, payload: command.payload });
    }
    if (automations.isOwnAutomation(principal, command.run_id)) {
      throw automationError(409, 'invalid_state', `'${command.type.slice(0, 40)}' is a run command; an automation takes the automation.* commands (automation.pause, automation.resume, automation.run_now, ...).`, { field: 'type', command_id: command.command_id });
    }
    return undefined;
  };
}
