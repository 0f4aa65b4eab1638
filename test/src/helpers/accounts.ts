/**
 * Non-admin accounts and their uploads through a test kernel's HTTP API, for tests that act as a
 * (hostile) account rather than the admin.
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { bundle, multipart } from './flow-builder.js';

/** Creates the account (as the admin) and answers its bearer token. */
export async function createAccount(k: TestKernel, account: string): Promise<string> {
  const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account } });
  expect(created.statusCode, created.body).to.equal(201);
  return created.json<{ token: { token: string } }>().token.token;
}

/** Uploads `flow` as the bundle `bundleId`@1.0.0 with `token` (201). */
export async function uploadBundleAs(k: TestKernel, token: string, bundleId: string, flow: Parameters<typeof bundle>[2]): Promise<void> {
  const body = multipart({}, { name: `${bundleId}.flow`, bytes: bundle(bundleId, '1.0.0', flow) });
  const uploaded = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token, payload: body.payload, headers: body.headers });
  expect(uploaded.statusCode, uploaded.body).to.equal(201);
}
