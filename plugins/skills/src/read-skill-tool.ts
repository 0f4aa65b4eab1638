/**
 * The `read_skill` agent tool: a validated skill's instructions, judged again at read time (an
 * edit, an advisory or a lost validation since the start holds it). Only names of skills, never
 * paths: a name is letters, digits, '-' and '_', and the folder is read without following links.
 * Offered to the agents of a run with a skills index (`_runtime.skills_block`).
 */
import { AgentToolRefusal, type AgentTool } from '@keel/plugin-gateway-runs';
import { READ_MIN_CHARS, type SkillsConfig } from './skills-config.js';
import { skillsNote } from './skills-block.js';
import { SKILL_NAME } from './skill-tree.js';
import type { SkillsService } from './skills-service.js';

export const READ_SKILL = 'read_skill';

export function readSkillTool(skills: SkillsService, config: Pick<SkillsConfig, 'readDefaultMaxChars' | 'readMaxChars'>): AgentTool {
  return {
    name: READ_SKILL,
    description: `Read the instructions of a skill listed under available skills, by its name; at most max_chars characters (default ${config.readDefaultMaxChars}).`,
    parameters: { type: 'object', properties: { name: { type: 'string' }, max_chars: { type: 'integer' } }, required: ['name'] },
    offeredTo(vars) {
      const runtime = vars._runtime as Record<string, unknown> | undefined;
      const block = runtime?.skills_block;
      return typeof block === 'string' && block.trim() ? { note: skillsNote(block) } : null;
    },
    async run({ arguments: args }) {
      const name = typeof args.name === 'string' ? args.name.trim() : '';
      if (!SKILL_NAME.test(name)) throw new AgentToolRefusal(`read_skill needs the name of a skill (letters, digits, '-' and '_'), not ${JSON.stringify(args.name ?? null)?.slice(0, 80)}.`);
      const asked = args.max_chars === undefined || args.max_chars === null ? config.readDefaultMaxChars : Number(args.max_chars);
      if (!Number.isFinite(asked)) throw new AgentToolRefusal('max_chars is a whole number of characters.');
      const max = Math.min(Math.max(Math.floor(asked), READ_MIN_CHARS), config.readMaxChars);
      const shelf = skills.shelf();
      // Refusals reach the run's owner (any account): the data directory's path is never in them.
      if (!shelf.available || !shelf.path) throw new AgentToolRefusal(skills.hidePaths(`No skills shelf is available on this gateway (${shelf.reason ?? 'no shelf'}).`));
      const skill = (await skills.judge(shelf.path, [name])).get(name);
      if (!skill) throw new AgentToolRefusal(`There is no skill named ${name} on the shelf.`);
      if (skill.blocked) throw new AgentToolRefusal(skills.hidePaths(`The skill ${name} is blocked: ${skill.reasons.join('; ')}.`));
      if (skill.trust_level !== 'validated' || skill.body === null) throw new AgentToolRefusal(skills.hidePaths(`The skill ${name} is held until it is validated: ${skill.reasons.join('; ')}.`));
      const text = `# Skill: ${name}\n${skill.description}\n\n${skill.body.trim()}`;
      if (text.length <= max) return text;
      return `${text.slice(0, max)}\n#TRUNCATION: skill body capped at ${max} chars — call read_skill with a larger max_chars for the rest`;
    },
  };
}
