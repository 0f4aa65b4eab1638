import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { workspacesToken } from '@keel/plugin-workspaces';
import { artifactsGateway, type UploadAnswer } from './helpers/artifacts.js';

/**
 * Attack (issue 12): hostile Range headers and query values on the content routes (artifact content
 * and run workspace content) by a non-admin: always an answer from 200/206/400/404/416, never a 500.
 */
describe('attack: hostile Range headers and paths on the content routes', function () {
  this.timeout(180_000);
  const gw = artifactsGateway();
  let upload: UploadAnswer;
  let empty: UploadAnswer;
  let runId = '';
  before(async () => {
    await gw.boot();
    upload = await gw.put(gw.bob, 'r', 'a.txt', '0123456789');
    empty = await gw.put(gw.bob, 'r', 'empty.txt', '');
    runId = await gw.run(gw.bob, { session_id: 'r' });
    const workspaces = gw.k.resolve(workspacesToken);
    const root = await workspaces.rootOf(workspaces.recorded(runId)!);
    writeFileSync(path.join(root, 'a.txt'), '0123456789');
    writeFileSync(path.join(root, 'empty.txt'), '');
  });
  after(() => gw.stop());

  const ranges = [
    'bytes=0-0',
    'bytes=-0',
    'bytes=0-',
    'bytes=5-2',
    'bytes=99999999999999999999999-',
    'bytes=-99999999999999999999999',
    'bytes=0-99999999999999999999999',
    'bytes=1e3-2e3',
    'bytes=0x1-0x5',
    'bytes= 1 - 2 ',
    'bytes=,,,,',
    'bytes=0-1,',
    'items=0-1',
    'bytes=-',
    'bytes=1-2,3-4,5-6,7-8,9-9',
    `bytes=${Array.from({ length: 1500 }, (_, i) => `${i % 10}-${i % 10}`).join(',')}`,
    `bytes=${Array.from({ length: 1500 }, (_, i) => `${i}-${i}`).join(',')}`,
    'bytes=0-0\u0000',
  ];

  it('answers every Range on artifact and workspace content without a 500', async () => {
    const urls = [
      `/api/gateway/runs/${runId}/artifacts/${upload.artifact.artifact_id}/content`,
      `/api/gateway/runs/${runId}/artifacts/${empty.artifact.artifact_id}/content`,
      `/api/gateway/runs/${runId}/workspace/content?path=a.txt`,
      `/api/gateway/runs/${runId}/workspace/content?path=empty.txt`,
    ];
    for (const url of urls) {
      for (const range of ranges) {
        let res;
        try {
          res = await gw.k.inject({ url, token: gw.bob, headers: { range } });
        } catch (err) {
          // A header Node itself refuses to send (a NUL) is no attack on the route.
          if (/Invalid character/.test(String(err))) continue;
          throw err;
        }
        expect(res.statusCode, `${url} ${range.slice(0, 40)}: ${res.body.slice(0, 200)}`).to.be.oneOf([200, 206, 400, 416]);
      }
    }
  });

  it('answers hostile workspace paths and listing parameters without a 500', async () => {
    const paths = ['%00', '..%2f..%2fetc%2fpasswd', '%2e%2e/%2e%2e/etc/passwd', 'a.txt/', 'a.txt/x', '\\..\\..\\etc\\passwd', `${'x/'.repeat(2000)}`, 'C:/Windows', '\u2025/etc/passwd', 'a.txt%00.png', `${'n'.repeat(300)}`, `${'n'.repeat(300)}/x`];
    for (const p of paths) {
      for (const route of ['content', 'files']) {
        const res = await gw.get(gw.bob, `/api/gateway/runs/${runId}/workspace/${route}?path=${encodeURIComponent(p)}`);
        expect(res.statusCode, `${route} ${p.slice(0, 40)}: ${res.body.slice(0, 200)}`).to.be.oneOf([200, 400, 403, 404]);
        expect(res.body).to.not.include('root:x:0');
      }
    }
    for (const q of ['limit=0', 'limit=-1', 'limit=1e9', 'limit=abc', 'recursive=maybe', 'limit=99999999999999999999', 'path[]=a&path[]=b', 'path=a&path=b']) {
      const res = await gw.get(gw.bob, `/api/gateway/runs/${runId}/workspace/files?${q}`);
      expect(res.statusCode, `${q}: ${res.body.slice(0, 200)}`).to.be.oneOf([200, 400]);
    }
  });
});
