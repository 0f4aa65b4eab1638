/**
 * The runtime setting `skills.shelf` (reference gateway-surfaces §7.1), defined in gateway-runs'
 * runtime-config store: a saved value must be an absolute folder holding `skills/` and is stored
 * resolved (its real path); its row in `GET /admin/runtime-config` says which shelf is in use and why.
 */
import { realpathSync } from 'node:fs';
import { badRequest } from '@keel/plugin-sdk';
import type { RuntimeSettingDefinition } from '@keel/plugin-gateway-runs';
import { SHELF_ENV, SHELF_SETTING, shelfProblem } from './shelf.js';
import type { SkillsService } from './skills-service.js';

export function shelfSetting(skills: SkillsService, saved: () => unknown, bundledVersion: () => string | null): RuntimeSettingDefinition {
  return {
    key: SHELF_SETTING,
    check(value) {
      const problem = shelfProblem(value);
      if (problem) throw badRequest(`${SHELF_SETTING} must be an absolute folder holding skills/: ${problem}.`, { code: 'invalid_setting', field: SHELF_SETTING });
      return realpathSync(value as string);
    },
    rows() {
      const shelf = skills.shelf();
      return [
        {
          key: SHELF_SETTING,
          label: 'Skills shelf',
          help: 'The folder holding skills/<name>/SKILL.md and the trust files (validations.yaml, advisories.yaml). Empty: the KEEL_SKILLS_SHELF environment value, else the copy of Keel\'s bundled skills seeded into the data dir.',
          env_name: SHELF_ENV,
          value: shelf.source === 'stored' ? (saved() ?? null) : shelf.source === 'env' ? (process.env[SHELF_ENV] ?? null) : null,
          source: shelf.source,
          resolved: shelf.path,
          available: shelf.available,
          reason: shelf.reason,
          default_path: skills.seeder.dest,
          bundled_version: bundledVersion(),
          cli: null,
          ...(shelf.warnings.length ? { warnings: shelf.warnings } : {}),
        },
      ];
    },
  };
}
