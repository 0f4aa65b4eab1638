/** Helpers for hub tests: a kernel with the hub plugin, seats, and JSON calls through `inject`. */
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';

export interface HubCall {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test assertions read arbitrary JSON
  headers: Record<string, unknown>;
}

export interface HubHarness {
  kernel: TestKernel;
  call(method: string, url: string, token?: string, payload?: unknown, headers?: Record<string, string>): Promise<HubCall>;
  /** Registers a seat with the admin key; returns its key. */
  seat(id: string, options?: { operator?: boolean; about?: string; mission?: string }): Promise<string>;
  stop(): Promise<void>;
}

export async function startHub(): Promise<HubHarness> {
  const kernel = await createTestKernel({ plugins: [hubPlugin] });
  const call = async (method: string, url: string, token?: string, payload?: unknown, headers: Record<string, string> = {}): Promise<HubCall> => {
    const res = await kernel.inject({ method, url: `/hub${url}`, token, payload: payload as Record<string, unknown> | undefined, headers: { 'x-hub-client': 'keel-tests/1', ...headers } });
    let body: unknown = res.body;
    try {
      body = JSON.parse(res.body);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.statusCode, body, headers: res.headers };
  };
  return {
    kernel,
    call,
    seat: async (id, options = {}) => {
      const res = await call('POST', '/agents', kernel.adminToken, { id, ...options });
      if (res.status !== 200) throw new Error(`registering ${id}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.api_key as string;
    },
    stop: () => kernel.stop(),
  };
}
