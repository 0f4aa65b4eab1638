/**
 * `GET /skills` (any signed-in principal) and `POST /admin/skills/reseed` (admin), seed 000 §2.9,
 * §4.7. The shelf's path is shown to admins only (it lies in the data dir); others get `shelf: null`
 * and `shelf_hidden: true`. An empty list always comes with a warning sentence.
 */
import { defineSchema, route, serviceUnavailable, type AnyRoute, type AuthService } from '@keel/plugin-sdk';
import type { SkillsService } from './skills-service.js';

const stringList = { type: 'array', items: { type: 'string' } } as const;

const skillRow = {
  type: 'object',
  required: ['name', 'description', 'version', 'trust_level', 'blocked', 'requires_review', 'reasons', 'tree_hash', 'has_scripts', 'source', 'requires'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    version: { type: ['string', 'null'] },
    trust_level: { type: 'string', enum: ['validated', 'unverified'] },
    blocked: { type: 'boolean' },
    requires_review: { type: 'boolean' },
    reasons: stringList,
    tree_hash: { type: ['string', 'null'] },
    has_scripts: { type: 'boolean' },
    source: { type: 'string', enum: ['bundled', 'modified', 'local'] },
    requires: { type: 'object', properties: { tools: stringList, mcp_servers: stringList } },
  },
} as const;

const skillsResponse = defineSchema({
  type: 'object',
  required: ['skills', 'shelf', 'shelf_source', 'available', 'reason', 'bundled_version', 'warnings'],
  properties: {
    skills: { type: 'array', items: skillRow },
    shelf: { type: ['string', 'null'] },
    shelf_hidden: { type: 'boolean' },
    shelf_source: { type: 'string', enum: ['stored', 'env', 'seeded', 'checkout', 'none'] },
    available: { type: 'boolean' },
    reason: { type: ['string', 'null'] },
    bundled_version: { type: ['string', 'null'] },
    warnings: stringList,
  },
});

const reseedResponse = defineSchema({
  type: 'object',
  required: ['ok', 'dest', 'added', 'updated', 'unchanged', 'kept', 'kept_edited', 'kept_unrecorded', 'bundled_version', 'previous_version', 'changed'],
  properties: {
    ok: { type: 'boolean' },
    dest: { type: 'string' },
    added: stringList,
    updated: stringList,
    unchanged: stringList,
    kept: { type: 'object', additionalProperties: { type: 'string' } },
    kept_edited: stringList,
    kept_unrecorded: stringList,
    bundled_version: { type: 'string' },
    previous_version: { type: ['string', 'null'] },
    changed: { type: 'boolean' },
  },
});

export function skillsRoutes(skills: SkillsService, auth: Pick<AuthService, 'isAdmin'>): AnyRoute[] {
  return [
    route({
      method: 'GET',
      path: '/skills',
      tags: ['skills'],
      summary: 'The skills on the shelf with their trust verdicts, which shelf is in use (shelf_source) and warnings',
      responses: { 200: { schema: skillsResponse } },
      handler: async ({ principal }) => {
        const shelf = skills.shelf();
        const { skills: rows, warnings } = await skills.list(shelf);
        const all = [...shelf.warnings, ...warnings];
        if (!rows.length) {
          all.push(shelf.available ? `The skills shelf (${shelf.source}) holds no skills: add skills/<name>/SKILL.md folders to it, or reseed Keel's bundled skills (POST /api/gateway/admin/skills/reseed).` : `No skills are available: ${shelf.reason ?? 'no shelf'}.`);
        }
        const admin = auth.isAdmin(principal);
        // The shelf's path is an admin's to see: in every sentence too (reasons and errors name paths).
        const shown = (text: string) => (admin ? text : skills.hidePaths(text));
        return {
          skills: admin ? rows : rows.map((r) => ({ ...r, reasons: r.reasons.map(shown) })),
          shelf: admin ? shelf.path : null,
          ...(admin ? {} : { shelf_hidden: true }),
          shelf_source: shelf.source,
          available: shelf.available,
          reason: shelf.reason === null ? null : shown(shelf.reason),
          bundled_version: await skills.seeder.bundledVersion().catch(() => null),
          warnings: all.map(shown),
        };
      },
    }),
    route({
      method: 'POST',
      path: '/admin/skills/reseed',
      auth: 'admin',
      tags: ['skills'],
      summary: "Copies Keel's bundled skills into the seeded shelf: adds missing ones, updates unedited ones, never overwrites an edited copy",
      responses: { 200: { schema: reseedResponse } },
      handler: async () => {
        try {
          return await skills.seeder.seed();
        } catch (err) {
          throw serviceUnavailable(`The bundled skills could not be copied into the seeded shelf (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); check that the data directory is writable and try again.`);
        }
      },
    }),
  ];
}
