import { expect } from 'chai';
import { artifactsGateway } from './helpers/artifacts.js';

/**
 * `GET /runs/{run_id}/artifacts/{id}/content` (seed §4.6): `access_action` and its alias, inline only
 * for raster images, never SVG or HTML, nosniff and a sandbox CSP on every answer, Range.
 */

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');
const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>';
const HTML = '<html><body><script>fetch("/api/gateway/runs")</script></body></html>';

describe('artifacts: content types and dispositions', function () {
  this.timeout(120_000);
  const gw = artifactsGateway();
  before(() => gw.boot());
  after(() => gw.stop());

  const content = (id: string, query = '', headers: Record<string, string> = {}) => gw.k.inject({ url: `/api/gateway/runs/session_memory_media/artifacts/${id}/content${query}`, token: gw.bob, headers });

  it('shows a raster image inline for content and preview, as an attachment for download', async () => {
    const png = (await gw.put(gw.bob, 'media', 'dot.png', PNG, [], 'image/png')).artifact;
    for (const query of ['', '?access_action=content', '?access_action=preview', '?access=preview', '?access_action=bogus']) {
      const res = await content(png.artifact_id, query);
      expect(res.statusCode, query).to.equal(200);
      expect(res.headers['content-type'], query).to.equal('image/png');
      expect(res.headers['content-disposition'], query).to.match(/^inline; filename="?dot\.png"?$/);
      expect(res.headers['x-content-type-options']).to.equal('nosniff');
      expect(res.headers['content-security-policy']).to.equal('sandbox');
      expect(res.rawPayload.equals(PNG)).to.equal(true);
    }
    const download = await content(png.artifact_id, '?access_action=download');
    expect(download.headers['content-disposition']).to.match(/^attachment; filename="?dot\.png"?$/);
    // `access` wins over `access_action`.
    expect((await content(png.artifact_id, '?access_action=preview&access=download')).headers['content-disposition']).to.match(/^attachment/);
    expect((await content(png.artifact_id, '?access_action=download&access=preview')).headers['content-disposition']).to.match(/^inline/);
  });

  it('never shows SVG, HTML or other types inline, whatever the action', async () => {
    const svg = (await gw.put(gw.bob, 'media', 'x.svg', SVG, [], 'image/svg+xml')).artifact;
    const html = (await gw.put(gw.bob, 'media', 'x.html', HTML, [], 'text/html')).artifact;
    const sneaky = (await gw.put(gw.bob, 'media', 'x.png', SVG, [{ name: 'content_type', value: 'image/svg+xml' }])).artifact;
    const js = (await gw.put(gw.bob, 'media', 'x.js', 'alert(1)')).artifact;
    for (const [ref, type] of [[svg, 'image/svg+xml'], [html, 'text/html'], [sneaky, 'image/svg+xml'], [js, 'text/javascript']] as const) {
      expect(ref.content_type).to.equal(type);
      for (const query of ['', '?access_action=preview', '?access=content', '?access_action=open']) {
        const res = await content(ref.artifact_id, query);
        expect(res.statusCode).to.equal(200);
        expect(res.headers['content-disposition'], `${type} ${query}`).to.match(/^attachment;/);
        expect(res.headers['x-content-type-options']).to.equal('nosniff');
        expect(res.headers['content-security-policy']).to.equal('sandbox');
        expect(res.headers['content-type']).to.match(new RegExp(`^${type.replace('+', '\\+')}`));
      }
    }
  });

  it('answers ranges (206, 416) with a strong ETag', async () => {
    const ref = (await gw.put(gw.bob, 'media', 'digits.txt', '0123456789')).artifact;
    const whole = await content(ref.artifact_id);
    expect(whole.headers.etag).to.equal(`"${ref.sha256}"`);
    const part = await content(ref.artifact_id, '', { range: 'bytes=2-5' });
    expect(part.statusCode).to.equal(206);
    expect(part.body).to.equal('2345');
    expect(part.headers['content-range']).to.equal('bytes 2-5/10');
    const suffix = await content(ref.artifact_id, '', { range: 'bytes=-3' });
    expect(suffix.body).to.equal('789');
    const outside = await content(ref.artifact_id, '', { range: 'bytes=50-60' });
    expect(outside.statusCode).to.equal(416);
    const again = await content(ref.artifact_id, '', { 'if-none-match': `"${ref.sha256}"` });
    expect(again.statusCode).to.equal(304);
  });

  it('names a non-ASCII file in the disposition without breaking the header', async () => {
    const ref = (await gw.put(gw.bob, 'media', 'résumé final.pdf', '%PDF-1.4')).artifact;
    const res = await content(ref.artifact_id, '?access_action=download');
    expect(res.headers['content-disposition']).to.include("filename*=UTF-8''r%C3%A9sum%C3%A9");
    expect(res.headers['content-disposition']).to.not.match(/[\r\n]/);
  });

  it('answers 404 for an unknown artifact and for a memory run the caller has no such session for', async () => {
    expect((await content('nope')).statusCode).to.equal(404);
    const ref = (await gw.put(gw.bob, 'media', 'a.txt', 'a')).artifact;
    expect((await gw.get(gw.bob, `/api/gateway/runs/session_memory_other/artifacts/${ref.artifact_id}/content`)).statusCode).to.equal(404);
  });

  it('reaches uploads of a session whose id is not plain under its hashed memory run id', async () => {
    for (const session of ['team/α 1', 'sha_looks-hashed']) {
      const ref = (await gw.put(gw.bob, session, 'n.txt', `in ${session}`)).artifact;
      expect(ref.run_id).to.match(/^session_memory_sha_[0-9a-f]{32}$/);
      expect((await gw.get(gw.bob, `/api/gateway/runs/${ref.run_id}/artifacts/${ref.artifact_id}/content`)).body).to.equal(`in ${session}`);
      const list = (await gw.get(gw.bob, `/api/gateway/sessions/${encodeURIComponent(session)}/artifacts`)).json<{ items: Array<{ artifact_id: string }> }>();
      expect(list.items.map((r) => r.artifact_id)).to.include(ref.artifact_id);
      // Another account does not reach it by the hashed id either.
      expect((await gw.get(gw.eve, `/api/gateway/runs/${ref.run_id}/artifacts/${ref.artifact_id}/content`)).statusCode).to.equal(404);
    }
  });
});
