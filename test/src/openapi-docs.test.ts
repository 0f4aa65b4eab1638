import { expect } from 'chai';
import { core } from '@keel/plugin-sdk';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { hubPlugin } from '@keel/plugin-hub';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';

interface Operation { tags: string[]; requestBody?: { content: Record<string, { schema: Record<string, unknown>; example?: unknown }> } }
interface OpenApiDoc {
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: { bearerAuth: { description: string } } };
}

/** What /docs shows a new user, read from the document it renders: sections, the Authorize text, examples. */
describe('OpenAPI sections and examples of the default plugins', () => {
  let kernel: TestKernel;
  let doc: OpenApiDoc;
  before(async () => {
    kernel = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, hubPlugin], config: { server: { logLevel: 'silent' } } });
    doc = (await kernel.inject({ url: '/openapi.json' })).json<OpenApiDoc>();
  });
  after(() => kernel.stop());

  const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));

  it('lists exactly the sections its routes use: no empty section, no route outside a declared one', () => {
    const declared = doc.tags.map((t) => t.name);
    expect(new Set(declared).size, 'each section once').to.equal(declared.length);
    const used = new Set(operations().flatMap(({ op }) => op.tags));
    expect([...used].sort()).to.deep.equal([...declared].sort());
    for (const { name, op } of operations()) expect(op.tags, name).to.have.length(1);
  });

  it('describes each section by the plugin that serves it, with its version', () => {
    const runs = doc.tags.find((t) => t.name === 'runs')!;
    expect(runs.description).to.match(/gateway-runs plugin \(v\d+\.\d+\.\d+\)/).and.match(/ledger plugin \(v\d+\.\d+\.\d+\)/);
    expect(doc.tags.find((t) => t.name === 'hub')!.description).to.match(/^From the hub plugin \(v/);
  });

  it("keeps the Authorize dialog's <data> visible: a Markdown code span, not a bare tag", () => {
    const text = doc.components.securitySchemes.bearerAuth.description;
    expect(text).to.include('`<data>/auth/admin.token`').and.include('KEEL_ADMIN_TOKEN');
    expect(text.replace(/`[^`]*`/g, '')).to.not.match(/<[a-z]/i);
  });

  it('gives the main request bodies a real example that validates against its own schema', () => {
    const validator = kernel.resolve(core.validator);
    const expected = {
      'POST /api/gateway/runs/start': (ex: Record<string, unknown>) => expect(ex).to.have.nested.property('input_data.prompt').that.is.a('string').and.not.empty,
      'POST /api/gateway/commands': (ex: Record<string, unknown>) => expect(ex.type).to.equal('pause'),
      'POST /v1/chat/completions': (ex: Record<string, unknown>) => expect(ex).to.include({ model: 'local/keel-tiny-chat' }).and.have.nested.property('messages[0].content').that.not.empty,
      'POST /v1/completions': (ex: Record<string, unknown>) => expect(ex).to.include({ model: 'local/keel-tiny-chat' }).and.have.property('prompt').that.not.empty,
      'POST /v1/embeddings': (ex: Record<string, unknown>) => expect(ex).to.include({ model: 'local/keel-tiny-chat' }).and.have.property('input').that.not.empty,
      'POST /hub/channels/{channel}/messages': (ex: Record<string, unknown>) => expect(ex.body).to.be.a('string').and.not.empty,
    };
    const byName = new Map(operations().map(({ name, op }) => [name, op]));
    for (const [name, check] of Object.entries(expected)) {
      const media = byName.get(name)?.requestBody?.content['application/json'];
      expect(media, name).to.not.equal(undefined);
      expect(media!.example, `${name} example`).to.be.an('object');
      check(media!.example as Record<string, unknown>);
      expect(() => validator.compile(media!.schema)(structuredClone(media!.example)), name).to.not.throw();
    }
    // Every example anywhere in the document is valid against the schema it illustrates.
    for (const { name, op } of operations()) {
      for (const media of Object.values(op.requestBody?.content ?? {})) {
        if (media.example !== undefined) expect(() => validator.compile(media.schema)(structuredClone(media.example)), name).to.not.throw();
      }
    }
  });
});
