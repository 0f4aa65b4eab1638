/**
 * `_runtime.skills_block`: the index of a run's active skills, in the "available skills" XML form
 * agents read (name and description per skill, in the order asked). Byte-stable for a run: it is
 * written once at start and agent children inherit it verbatim.
 */
export interface IndexedSkill {
  name: string;
  description: string;
}

export function renderSkillsBlock(skills: IndexedSkill[]): string {
  const rows = skills.map((s) => `<skill>\n<name>${xml(s.name)}</name>\n<description>${xml(s.description)}</description>\n</skill>`);
  return `<available_skills>\n${rows.join('\n')}\n</available_skills>`;
}

/** What an agent offered `read_skill` reads in its system prompt. */
export function skillsNote(block: string): string {
  return [
    'Skills are available for this task. Before you follow one, read its instructions with the read_skill tool',
    '(arguments: {"name": "<skill name>"}; add "max_chars" for a longer read).',
    block,
  ].join('\n');
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
