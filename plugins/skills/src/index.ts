/**
 * `@keel/plugin-skills`: the skills shelf (seed 000 §2.9, §4.7; reference gateway-surfaces §7):
 * Keel's bundled skills seeded into the data dir, trust verdicts from the shelf's trust files,
 * `GET /skills`, `POST /admin/skills/reseed`, the runtime setting `skills.shelf`, the resolution of
 * `input_data.skills` at run start (`_runtime.skills_block`, `_runtime.skills_resolution`) and the
 * `read_skill` tool agents use to read an active skill.
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { core, definePlugin } from '@keel/plugin-sdk';
import { agentToolsToken, runHooksToken, runtimeConfigToken } from '@keel/plugin-gateway-runs';
import { readSkillTool } from './read-skill-tool.js';
import { Seeder } from './seeding.js';
import { SHELF_SETTING } from './shelf.js';
import { shelfSetting } from './shelf-setting.js';
import { skillsConfigSchema } from './skills-config.js';
import { skillsPreparer } from './skills-selection.js';
import { skillsRoutes } from './skills-routes.js';
import { SkillsService } from './skills-service.js';

export type { SkillsConfig } from './skills-config.js';
export type { SkillsResolution } from './skills-selection.js';
export type { SkillRow } from './shelf-skills.js';
export type { SeedReport } from './seeding.js';

/** The shelf shipped in this package: Keel's bundled skills and their trust files. */
export const BUNDLED_SHELF = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../bundled');

export const skillsPlugin = definePlugin({
  id: 'skills',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: "The skills shelf: Keel's bundled skills, trust verdicts, the run-start skills selection and the read_skill agent tool",
  configSchema: skillsConfigSchema,
  defaultPrefix: '/api/gateway',
  deps: { log: core.logger, storage: core.storage, paths: core.paths, auth: core.auth, host: core.host, runHooks: runHooksToken, runtimeConfig: runtimeConfigToken, agentTools: agentToolsToken },
  setup({ config, deps }) {
    const bundled = config.bundledShelf ? path.resolve(config.bundledShelf) : BUNDLED_SHELF;
    const seeder = new Seeder(deps.storage, bundled, path.join(deps.paths.pluginDir, 'registry'), config);
    const saved = () => deps.runtimeConfig.get(SHELF_SETTING);
    const skills = new SkillsService({ stored: saved, seeded: seeder.dest, bundled, seedFailure: () => seeder.lastFailure() }, seeder, config, deps.paths.dataDir);
    let bundledVersion: string | null = null;
    deps.runtimeConfig.define(shelfSetting(skills, saved, () => bundledVersion));
    deps.agentTools.register('skills', readSkillTool(skills, config));
    deps.runHooks.addStartPreparer(skillsPreparer({ skills, toolNames: () => deps.agentTools.names(), maxRequested: config.maxRequested }));
    // Only a server (or an embedding, or a test kernel) seeds: a one-shot command or a `keel runner` reads what it seeded.
    const seeds = config.seedAtStart && deps.host.mode !== 'cli' && deps.host.mode !== 'headless';
    return {
      routes: skillsRoutes(skills, deps.auth),
      start: async () => {
        bundledVersion = await seeder.bundledVersion().catch(() => null);
        if (!seeds) return;
        try {
          const report = await seeder.seed();
          if (report.changed || report.kept_edited.length) deps.log.info('seeded the bundled skills', { added: report.added, updated: report.updated, kept: report.kept, version: report.bundled_version });
        } catch (err) {
          deps.log.warn('the bundled skills could not be seeded; the shelf falls back to the copy shipped with the plugin', { error: seeder.lastFailure() ?? String(err) });
        }
      },
    };
  },
});

export default skillsPlugin;
