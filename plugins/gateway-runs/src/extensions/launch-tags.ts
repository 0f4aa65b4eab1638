/** The attribution tags a root run may carry (`GET /runs` lists them as they are). */
import { KEY_ID_MAX_LENGTH } from '@keel/plugin-sdk';
import type { LaunchTags } from './run-launcher.js';
import type { RunState } from '../runtime/run-state.js';

const TAG_KINDS: ReadonlyArray<string> = ['automation', 'occurrence', 'discussion'];

/** Why the tags cannot be stored, or null. */
export function tagsRefusal(tags: LaunchTags | undefined): string | null {
  if (tags === undefined) return null;
  if (tags === null || typeof tags !== 'object') return 'tags must be an object.';
  if (tags.session_kind !== undefined && !TAG_KINDS.includes(tags.session_kind)) return `tags.session_kind must be one of ${TAG_KINDS.join(', ')}.`;
  for (const name of ['automation_id', 'role'] as const) {
    const value = tags[name];
    if (value !== undefined && (typeof value !== 'string' || !value || value.length > KEY_ID_MAX_LENGTH)) return `tags.${name} must be a string of 1 to ${KEY_ID_MAX_LENGTH} characters.`;
  }
  const index = tags.occurrence_index;
  if (index !== undefined && (!Number.isSafeInteger(index) || index < 0)) return 'tags.occurrence_index must be an integer of 0 or more.';
  return null;
}

/** Sets the given tags on the run (only those given). */
export function applyTags(run: RunState, tags: LaunchTags): void {
  if (tags.session_kind !== undefined) run.session_kind = tags.session_kind;
  if (tags.automation_id !== undefined) run.automation_id = tags.automation_id;
  if (tags.role !== undefined) run.role = tags.role;
  if (tags.occurrence_index !== undefined) run.occurrence_index = tags.occurrence_index;
}
