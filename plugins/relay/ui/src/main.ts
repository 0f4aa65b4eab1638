/**
 * Boots the status page. The API's prefix comes from `api.json` beside the page (the relay's `/v1`
 * mount may be moved by the config); `/v1` when it cannot be read.
 */
import { StatusPage } from './status-page.js';

async function apiBase(): Promise<string> {
  try {
    const res = await fetch('./api.json', { cache: 'no-store', credentials: 'omit' });
    const body = (await res.json()) as { api_base?: unknown };
    if (res.ok && typeof body.api_base === 'string' && body.api_base.startsWith('/')) return body.api_base.replace(/\/+$/, '');
  } catch {
    // The default below.
  }
  return '/v1';
}

const root = document.getElementById('relay-status');
if (root) new StatusPage(root, await apiBase()).start();
