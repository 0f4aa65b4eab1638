/**
 * The skills a start asks for (`input_data.skills`, reference gateway-surfaces §7.2), resolved before
 * the run is stored: validated skills become `active` and their index `_runtime.skills_block`;
 * every other outcome is a verdict in `_runtime.skills_resolution` — held (unverified), blocked
 * (advisory), missing from the shelf, requirements unmet, or a labelled `#FALLBACK` — and never
 * blocks the start. A `_runtime.skills_block` the caller supplied is never overwritten.
 */
import type { StartPreparation } from '@keel/plugin-gateway-runs';
import { renderSkillsBlock } from './skills-block.js';
import type { SkillsService } from './skills-service.js';
import type { JudgedSkill } from './shelf-skills.js';

export interface SkillsResolution {
  requested: string[];
  active: string[];
  verdicts: string[];
  resolved_tree_hashes: Record<string, string>;
  shelf_source: string;
  requires?: Record<string, { tools: string[]; mcp_servers: string[] }>;
  requires_unmet?: string[];
}

export interface SelectionDeps {
  skills: SkillsService;
  /** Every tool name a run can call (file tools and registered tools). */
  toolNames: () => string[];
  maxRequested: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function skillsPreparer(deps: SelectionDeps) {
  return async (start: StartPreparation): Promise<void> => {
    if (!('skills' in start.inputData)) return;
    const runtime = isRecord(start.vars._runtime) ? start.vars._runtime : (start.vars._runtime = {});
    const shelfSource = () => {
      try {
        return deps.skills.shelf().source;
      } catch {
        return 'none';
      }
    };
    let resolution: SkillsResolution;
    try {
      resolution = await resolve(start.inputData.skills, runtime, deps);
    } catch (err) {
      resolution = { requested: namesOf(start.inputData.skills).names, active: [], verdicts: [`#FALLBACK skill resolution failed: ${(err as Error).message}`], resolved_tree_hashes: {}, shelf_source: shelfSource() };
    }
    // The run's owner reads these verdicts (GET /runs/{id}); shelf reasons name paths in the data directory.
    resolution.verdicts = resolution.verdicts.map((v) => deps.skills.hidePaths(v));
    runtime.skills_resolution = resolution;
  };
}

function namesOf(value: unknown): { names: string[]; notes: string[] } {
  if (!Array.isArray(value)) return { names: [], notes: ['#FALLBACK input_data.skills is not a list of skill names; it was ignored'] };
  const names: string[] = [];
  const notes: string[] = [];
  for (const v of value) {
    if (typeof v !== 'string') {
      notes.push(`ignored: ${JSON.stringify(v)?.slice(0, 80) ?? String(v)} is not a skill name (a string)`);
      continue;
    }
    const name = v.trim();
    if (name && !names.includes(name)) names.push(name);
  }
  return { names, notes };
}

async function resolve(value: unknown, runtime: Record<string, unknown>, deps: SelectionDeps): Promise<SkillsResolution> {
  const { names, notes } = namesOf(value);
  const verdicts = [...notes];
  let requested = names;
  if (requested.length > deps.maxRequested) {
    verdicts.push(`#TRUNCATION only the first ${deps.maxRequested} of ${requested.length} requested skills were resolved (skills setting maxRequested): ${requested.slice(deps.maxRequested).join(', ')} left out`);
    requested = requested.slice(0, deps.maxRequested);
  }
  const shelf = deps.skills.shelf();
  const base = { requested, active: [] as string[], verdicts, resolved_tree_hashes: {} as Record<string, string>, shelf_source: shelf.source };
  if (runtime.skills_block !== undefined) {
    verdicts.push(`ignored: the caller supplied _runtime.skills_block, which is kept as given; the skills selection${requested.length ? ` (${requested.join(', ')})` : ''} was not resolved`);
    return base;
  }
  if (!requested.length) return base;
  if (!shelf.available || !shelf.path) {
    verdicts.push(`#FALLBACK no curated shelf found (${shelf.reason ?? 'no shelf'}) — requested skills did not resolve`);
    return base;
  }
  verdicts.push(...shelf.warnings);
  const judged = await deps.skills.judge(shelf.path, requested);
  const tools = new Set(deps.toolNames());
  const requires: NonNullable<SkillsResolution['requires']> = {};
  const unmet: string[] = [];
  const active: JudgedSkill[] = [];
  for (const name of requested) {
    const skill = judged.get(name);
    if (!skill) {
      verdicts.push(`missing from shelf: ${name}`);
      continue;
    }
    if (skill.blocked) {
      verdicts.push(`blocked: ${name} — ${skill.reasons.join('; ')}`);
      continue;
    }
    if (skill.trust_level !== 'validated') {
      verdicts.push(`held: ${name} — ${skill.reasons.join('; ')}`);
      continue;
    }
    if (skill.requires.tools.length || skill.requires.mcp_servers.length) {
      requires[name] = skill.requires;
      const missingTools = skill.requires.tools.filter((t) => !tools.has(t));
      // Keel declares no MCP servers: a skill needing one cannot ride.
      const missingServers = skill.requires.mcp_servers;
      if (missingTools.length || missingServers.length) {
        const parts = [missingServers.length ? `MCP server(s) not declared on this gateway: ${missingServers.join(', ')}` : null, missingTools.length ? `tool(s) not in the run-lane universe: ${missingTools.join(', ')}` : null].filter(Boolean);
        verdicts.push(`requires_unmet: ${name} — ${parts.join('; ')}`);
        unmet.push(name);
        continue;
      }
    }
    verdicts.push(`active: ${name} — validated at ${skill.tree_hash}`);
    active.push(skill);
  }
  const out: SkillsResolution = { ...base, active: active.map((s) => s.name), resolved_tree_hashes: Object.fromEntries(active.map((s) => [s.name, s.tree_hash!])) };
  if (Object.keys(requires).length) out.requires = requires;
  if (unmet.length) out.requires_unmet = unmet;
  if (active.length) runtime.skills_block = renderSkillsBlock(active);
  return out;
}
