/**
 * The skills shelf (seed 000 §2.9, §4.7; reference gateway-surfaces §7.1) through the HTTP API:
 * which shelf is used (`shelf_source`) and the warnings, Keel's bundled skills seeded into the data
 * dir, admin reseed that never overwrites an edited copy, trust verdicts, and the `skills.shelf` setting.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { runtimeConfigToken } from '@keel/plugin-gateway-runs';
import { createAccount } from './helpers/accounts.js';
import { tempDir } from './helpers/paths.js';
import { listSkills, skillsKernel, withShelfEnv, writeSkills, writeTrust } from './helpers/skills.js';
import { BUNDLED_SHELF } from '@keel/plugin-skills';

const BUNDLED = ['keel-flows', 'keel-runs', 'keel-sessions', 'keel-skills', 'keel-workspaces'];

type Reseed = { added: string[]; updated: string[]; unchanged: string[]; kept: Record<string, string>; kept_edited: string[]; kept_unrecorded: string[]; bundled_version: string; previous_version: string | null; changed: boolean };

const reseed = async (k: TestKernel, token = k.adminToken) => k.inject({ method: 'POST', url: '/api/gateway/admin/skills/reseed', token });

describe('skills shelf: bundled skills, seeding and GET /skills', function () {
  this.timeout(120_000);
  let k: TestKernel;
  let user: string;
  before(async () => {
    k = await skillsKernel();
    user = await createAccount(k, 'skill-user');
  });
  after(() => k?.stop());

  it('a fresh gateway seeds Keel\'s bundled skills into the data dir: shelf_source seeded, every bundled skill validated and unedited', async () => {
    const listing = await withShelfEnv(null, () => listSkills(k));
    expect(listing.shelf_source).to.equal('seeded');
    expect(listing.available).to.equal(true);
    expect(listing.shelf).to.equal(path.join(k.dataDir, 'plugins', 'skills', 'registry'));
    expect(listing.bundled_version).to.equal(readFileSync(path.join(BUNDLED_SHELF, 'VERSION'), 'utf8').trim());
    expect(listing.skills.map((s) => s.name)).to.deep.equal(BUNDLED);
    for (const s of listing.skills) {
      expect(s, s.name).to.include({ trust_level: 'validated', blocked: false, requires_review: false, source: 'bundled', has_scripts: false });
      expect(s.reasons, s.name).to.deep.equal([]);
      expect(s.tree_hash).to.match(/^sha256:[0-9a-f]{64}$/);
      expect(s.description.length, s.name).to.be.greaterThan(40);
    }
    expect(listing.warnings).to.deep.equal([]);
  });

  it('a non-admin sees the skills but not where the shelf lies (shelf null, shelf_hidden)', async () => {
    const listing = await withShelfEnv(null, () => listSkills(k, user));
    expect(listing.shelf).to.equal(null);
    expect(listing.shelf_hidden).to.equal(true);
    expect(listing.skills).to.have.length(BUNDLED.length);
  });

  it('without a token GET /skills is 401; a non-admin reseed is 403 with a sentence', async () => {
    expect((await k.inject({ url: '/api/gateway/skills' })).statusCode).to.equal(401);
    const res = await reseed(k, user);
    expect(res.statusCode).to.equal(403);
    expect(res.json<{ detail: string }>().detail).to.be.a('string').and.not.equal('');
  });

  it('reseed of an untouched shelf changes nothing: every skill and trust file unchanged, versions reported', async () => {
    const res = await reseed(k);
    expect(res.statusCode, res.body).to.equal(200);
    const report = res.json<Reseed>();
    expect(report.added).to.deep.equal([]);
    expect(report.updated).to.deep.equal([]);
    expect(report.unchanged).to.have.members([...BUNDLED, 'validations.yaml', 'advisories.yaml']);
    expect(report.changed).to.equal(false);
    expect(report.previous_version).to.equal(report.bundled_version);
  });

  it('an operator edit is never overwritten: the edited skill is held (changed since validated), reseed keeps it and says why', async () => {
    const file = path.join(k.dataDir, 'plugins', 'skills', 'registry', 'skills', 'keel-runs', 'SKILL.md');
    const edited = `${readFileSync(file, 'utf8')}\nOperator note: always use session ids.\n`;
    writeFileSync(file, edited);
    const row = (await withShelfEnv(null, () => listSkills(k))).skills.find((s) => s.name === 'keel-runs')!;
    expect(row).to.include({ trust_level: 'unverified', blocked: false, requires_review: true, source: 'modified' });
    expect(row.reasons.join(' ')).to.match(/^changed since it was validated \(tree hash [0-9a-f]{12} is not the validated [0-9a-f]{12}\)$/);

    const report = (await reseed(k)).json<Reseed>();
    expect(report.kept_edited).to.deep.equal(['keel-runs']);
    expect(report.kept['keel-runs']).to.match(/^edited since it was seeded/);
    expect(report.updated).to.not.include('keel-runs');
    expect(readFileSync(file, 'utf8')).to.equal(edited);
  });

  it('a deleted skill and a deleted trust file are added back by reseed', async () => {
    const shelf = path.join(k.dataDir, 'plugins', 'skills', 'registry');
    rmSync(path.join(shelf, 'skills', 'keel-flows'), { recursive: true });
    rmSync(path.join(shelf, 'advisories.yaml'));
    const report = (await reseed(k)).json<Reseed>();
    expect(report.added).to.have.members(['keel-flows', 'advisories.yaml']);
    expect(report.changed).to.equal(true);
    const row = (await withShelfEnv(null, () => listSkills(k))).skills.find((s) => s.name === 'keel-flows')!;
    expect(row).to.include({ trust_level: 'validated', source: 'bundled' });
  });
});

describe('skills shelf: a newer bundled version updates unedited copies and keeps edited ones', function () {
  this.timeout(120_000);
  const work = tempDir('keel-skills-up-');
  after(() => work.remove());

  it('restart on the same data dir with a newer bundle: updated for the unedited skill, kept_edited for the edited one, previous_version named', async () => {
    const v1 = path.join(work.dir, 'v1');
    const v2 = path.join(work.dir, 'v2');
    const data = path.join(work.dir, 'data');
    const h1 = await writeSkills(v1, { alpha: { body: 'alpha v1' }, beta: { body: 'beta v1' } });
    writeTrust(v1, h1);
    writeFileSync(path.join(v1, 'VERSION'), '1.0.0\n');
    const h2 = await writeSkills(v2, { alpha: { body: 'alpha v2' }, beta: { body: 'beta v2' }, gamma: { body: 'gamma v2' } });
    writeTrust(v2, h2);
    writeFileSync(path.join(v2, 'VERSION'), '2.0.0\n');

    let k = await skillsKernel({ bundledShelf: v1 }, data);
    const first = (await reseed(k)).json<Reseed>();
    expect(first.bundled_version).to.equal('1.0.0');
    await k.stop();
    // The operator edits beta (and the validations file) on the seeded shelf.
    const seeded = path.join(data, 'plugins', 'skills', 'registry');
    writeFileSync(path.join(seeded, 'skills', 'beta', 'SKILL.md'), '---\nname: beta\ndescription: Beta as the operator wants it.\n---\nmine\n');

    k = await skillsKernel({ bundledShelf: v2 }, data);
    try {
      // Start-up seeding already ran with v2; a reseed now reports the state it left.
      const listing = await withShelfEnv(null, () => listSkills(k));
      expect(listing.bundled_version).to.equal('2.0.0');
      const byName = Object.fromEntries(listing.skills.map((s) => [s.name, s]));
      expect(byName.alpha).to.include({ trust_level: 'validated', tree_hash: h2.alpha, source: 'bundled' });
      expect(byName.gamma).to.include({ trust_level: 'validated', source: 'bundled' });
      expect(byName.beta).to.include({ trust_level: 'unverified', source: 'modified' });
      expect(readFileSync(path.join(seeded, 'skills', 'beta', 'SKILL.md'), 'utf8')).to.contain('mine');
      const again = (await reseed(k)).json<Reseed>();
      expect(again.kept_edited).to.deep.equal(['beta']);
      expect(again.unchanged).to.include.members(['alpha', 'gamma', 'validations.yaml']);
      expect(again.previous_version).to.equal('2.0.0');
    } finally {
      await k.stop();
    }
  });

  it('the start-up seeding report itself: a second boot with v2 over v1 data says updated alpha, added gamma, kept beta', async () => {
    const v1 = path.join(work.dir, 'r1');
    const v2 = path.join(work.dir, 'r2');
    const data = path.join(work.dir, 'data2');
    writeTrust(v1, await writeSkills(v1, { alpha: { body: 'alpha v1' }, beta: { body: 'beta v1' } }));
    writeFileSync(path.join(v1, 'VERSION'), '1.0.0\n');
    writeTrust(v2, await writeSkills(v2, { alpha: { body: 'alpha v2' }, beta: { body: 'beta v2' }, gamma: {} }));
    writeFileSync(path.join(v2, 'VERSION'), '2.0.0\n');
    // Seed v1 without start-up seeding on the second boot, so reseed reports the whole move.
    let k = await skillsKernel({ bundledShelf: v1 }, data);
    await k.stop();
    const seeded = path.join(data, 'plugins', 'skills', 'registry');
    writeFileSync(path.join(seeded, 'skills', 'beta', 'SKILL.md'), '---\nname: beta\ndescription: Edited.\n---\nedited\n');
    k = await skillsKernel({ bundledShelf: v2, seedAtStart: false }, data);
    try {
      const report = (await reseed(k)).json<Reseed>();
      expect(report.updated).to.include('alpha');
      expect(report.updated).to.include('validations.yaml');
      expect(report.added).to.deep.equal(['gamma']);
      expect(report.kept_edited).to.deep.equal(['beta']);
      expect(report).to.include({ bundled_version: '2.0.0', previous_version: '1.0.0', changed: true });
      expect(readFileSync(path.join(seeded, 'skills', 'alpha', 'SKILL.md'), 'utf8')).to.contain('alpha v2');
      expect(readFileSync(path.join(seeded, 'skills', 'beta', 'SKILL.md'), 'utf8')).to.contain('edited');
    } finally {
      await k.stop();
    }
  });
});

describe('skills shelf: shelf sources, unusable values and trust verdicts', function () {
  this.timeout(120_000);
  const work = tempDir('keel-skills-src-');
  let k: TestKernel;
  before(async () => {
    k = await skillsKernel();
  });
  after(async () => {
    await k?.stop();
    work.remove();
  });

  it('KEEL_SKILLS_SHELF with an empty skills/ folder: shelf_source env, no skills, and a warning sentence', async () => {
    const shelf = path.join(work.dir, 'empty');
    mkdirSync(path.join(shelf, 'skills'), { recursive: true });
    const listing = await withShelfEnv(shelf, () => listSkills(k));
    expect(listing).to.include({ shelf_source: 'env', available: true, shelf });
    expect(listing.skills).to.deep.equal([]);
    expect(listing.warnings).to.have.length(1);
    expect(listing.warnings[0]).to.match(/^The skills shelf \(env\) holds no skills: /);
  });

  for (const [label, value, problem] of [
    ['a relative path', 'some/shelf', 'some/shelf is not an absolute path'],
    ['a missing folder', '/nonexistent/keel-shelf', 'no folder at /nonexistent/keel-shelf'],
  ] as const) {
    it(`KEEL_SKILLS_SHELF set to ${label} does not fall through: unavailable, no skills, the reason names the problem`, async () => {
      const listing = await withShelfEnv(value, () => listSkills(k));
      expect(listing).to.include({ shelf_source: 'env', available: false, shelf: null });
      expect(listing.reason).to.equal(`KEEL_SKILLS_SHELF (environment) is not usable: ${problem}`);
      expect(listing.skills).to.deep.equal([]);
      expect(listing.warnings).to.deep.equal([`No skills are available: ${listing.reason}.`]);
    });
  }

  it('KEEL_SKILLS_SHELF naming a folder without skills/ is unusable, with the shelf layout in the reason', async () => {
    const listing = await withShelfEnv(work.dir, () => listSkills(k));
    expect(listing.reason).to.equal(`KEEL_SKILLS_SHELF (environment) is not usable: ${work.dir} has no skills/ folder (a shelf holds skills/<name>/SKILL.md and the trust files)`);
  });

  it('trust verdicts: validated, unverified (no record), advisory-blocked (this hash and every version), broken front matter and a link fail closed', async () => {
    const shelf = path.join(work.dir, 'trust');
    const h = await writeSkills(shelf, {
      good: { description: 'A good skill.' },
      fresh: { description: 'Never reviewed.' },
      bad: { description: 'Validated but under an advisory.' },
      worse: { description: 'Advisory on every version.' },
      broken: { raw: 'no front matter here\n' },
      misnamed: { raw: '---\nname: other\ndescription: Names another skill.\n---\nbody\n' },
      scripted: { description: 'Has scripts.', files: { 'scripts/run.sh': 'echo hi\n' } },
      linked: { description: 'Holds a link.' },
    });
    symlinkSync('/etc/passwd', path.join(shelf, 'skills', 'linked', 'passwd'));
    mkdirSync(path.join(shelf, 'skills', 'bad.name'), { recursive: true });
    writeTrust(shelf, { good: h.good!, bad: h.bad!, worse: h.worse!, broken: h.broken!, scripted: h.scripted!, linked: h.linked! }, [
      { skill: 'bad', tree_hash: h.bad!, reason: 'it exfiltrates files' },
      { skill: 'worse', reason: 'withdrawn' },
    ]);
    const listing = await withShelfEnv(shelf, () => listSkills(k));
    const by = Object.fromEntries(listing.skills.map((s) => [s.name, s]));
    expect(Object.keys(by)).to.deep.equal(['bad', 'broken', 'fresh', 'good', 'linked', 'misnamed', 'scripted', 'worse']);
    expect(by.good).to.include({ trust_level: 'validated', blocked: false, requires_review: false, source: 'local' });
    expect(by.fresh).to.include({ trust_level: 'unverified', blocked: false, requires_review: true });
    expect(by.fresh!.reasons).to.deep.equal(['no validation record in validations.yaml']);
    expect(by.bad).to.include({ trust_level: 'validated', blocked: true, requires_review: true });
    expect(by.bad!.reasons).to.deep.equal(['advisory: it exfiltrates files']);
    expect(by.worse).to.include({ blocked: true });
    expect(by.broken).to.include({ trust_level: 'unverified' });
    expect(by.broken!.reasons[0]).to.match(/front matter/);
    expect(by.misnamed!.reasons).to.deep.equal(["its SKILL.md names it 'other', not its folder name"]);
    expect(by.scripted).to.include({ trust_level: 'validated', has_scripts: true });
    expect(by.linked).to.include({ trust_level: 'unverified' });
    expect(by.linked!.reasons[0]).to.equal('passwd is a link (links in a skill are not followed)');
    expect(listing.warnings.some((w) => w.startsWith('skills/bad.name is not listed'))).to.equal(true);
  });

  it('unreadable trust files fail closed: every skill held with a #FALLBACK reason and a warning', async () => {
    const shelf = path.join(work.dir, 'badtrust');
    await writeSkills(shelf, { one: {} });
    writeFileSync(path.join(shelf, 'validations.yaml'), 'validations: [unclosed\n');
    const listing = await withShelfEnv(shelf, () => listSkills(k));
    expect(listing.skills[0]).to.include({ trust_level: 'unverified', blocked: false, requires_review: true });
    expect(listing.skills[0]!.reasons[0]).to.match(/^#FALLBACK trust evaluation failed: validations\.yaml is not valid YAML/);
    expect(listing.warnings[0]).to.match(/trust files cannot be read/);
  });

  it('skills.shelf (stored) wins over the environment; its check refuses a relative path, a missing folder and a folder without skills/', async () => {
    const config = k.resolve(runtimeConfigToken);
    const def = config.definitionOf('skills.shelf')!;
    expect(def, 'the skills plugin defines skills.shelf').to.not.equal(undefined);
    const refusal = (value: unknown) => {
      try {
        def.check(value, 'skills.shelf');
      } catch (err) {
        return err as { status: number; message: string };
      }
      return null;
    };
    expect(refusal('relative/shelf')).to.include({ status: 400 });
    expect(refusal('relative/shelf')!.message).to.equal('skills.shelf must be an absolute folder holding skills/: relative/shelf is not an absolute path.');
    expect(refusal('/nonexistent/x')!.message).to.contain('no folder at /nonexistent/x');
    expect(refusal(work.dir)!.message).to.contain('has no skills/ folder');
    expect(refusal(42)!.message).to.contain('the value is not a path');

    const shelf = path.join(work.dir, 'stored');
    writeTrust(shelf, await writeSkills(shelf, { mine: {} }));
    await config.set('skills.shelf', def.check(shelf, 'skills.shelf'), 'admin');
    try {
      const listing = await withShelfEnv(path.join(work.dir, 'empty'), () => listSkills(k));
      expect(listing).to.include({ shelf_source: 'stored', shelf });
      expect(listing.skills.map((s) => s.name)).to.deep.equal(['mine']);
      const row = def.rows({ account: 'admin' } as never)[0]!;
      expect(row).to.include({ key: 'skills.shelf', label: 'Skills shelf', source: 'stored', value: shelf, resolved: shelf, available: true, env_name: 'KEEL_SKILLS_SHELF' });
      // A saved value that stopped being usable does not fall through to the environment.
      rmSync(path.join(shelf, 'skills'), { recursive: true });
      const broken = await withShelfEnv(path.join(work.dir, 'empty'), () => listSkills(k));
      expect(broken).to.include({ shelf_source: 'stored', available: false });
      expect(broken.reason).to.equal(`the saved skills.shelf is not usable: ${shelf} has no skills/ folder (a shelf holds skills/<name>/SKILL.md and the trust files)`);
    } finally {
      await config.set('skills.shelf', null, 'admin');
    }
  });
});

describe('skills shelf: seeding that fails falls back to the shipped shelf (checkout) with a warning', function () {
  this.timeout(120_000);
  const work = tempDir('keel-skills-co-');
  let k: TestKernel;
  before(async () => {
    // The seeded shelf's place is taken by a file: seeding cannot make the folder.
    mkdirSync(path.join(work.dir, 'plugins', 'skills'), { recursive: true });
    writeFileSync(path.join(work.dir, 'plugins', 'skills', 'registry'), 'not a folder');
    k = await skillsKernel({}, work.dir);
  });
  after(async () => {
    await k?.stop();
    work.remove();
  });

  it('shelf_source checkout, the bundled skills listed, and a warning naming why the seeded copy is missing', async () => {
    const listing = await withShelfEnv(null, () => listSkills(k));
    expect(listing.shelf_source).to.equal('checkout');
    expect(listing.shelf).to.equal(BUNDLED_SHELF);
    expect(listing.skills.map((s) => s.name)).to.deep.equal(BUNDLED);
    expect(listing.warnings).to.have.length(1);
    expect(listing.warnings[0]).to.match(/^The seeded copy of Keel's bundled skills is missing \(copying into the seeded shelf failed: ENOTDIR\)/);
  });

  it('a reseed that cannot write answers 503 with a sentence', async () => {
    const res = await reseed(k);
    expect(res.statusCode).to.equal(503);
    expect(res.json<{ detail: string }>().detail).to.match(/could not be copied into the seeded shelf/);
  });
});

describe('skills shelf: no usable shelf at all (shelf_source none)', function () {
  this.timeout(120_000);
  const work = tempDir('keel-skills-none-');
  let k: TestKernel;
  before(async () => {
    // A distribution's bundled shelf that is gone: seeding fails, and there is no shipped copy to fall back to.
    k = await skillsKernel({ bundledShelf: path.join(work.dir, 'gone') }, path.join(work.dir, 'data'));
  });
  after(async () => {
    await k?.stop();
    work.remove();
  });

  it('answers shelf_source none, unavailable with the reason, no skills, and a warning sentence', async () => {
    const listing = await withShelfEnv(null, () => listSkills(k));
    expect(listing).to.include({ shelf_source: 'none', available: false, shelf: null });
    expect(listing.reason).to.match(/^no shelf: the seeded copy is missing \(.+\) and the bundled shelf is not usable \(no folder at .+gone\)$/);
    expect(listing.skills).to.deep.equal([]);
    expect(listing.warnings).to.deep.equal([`No skills are available: ${listing.reason}.`]);
  });
});
