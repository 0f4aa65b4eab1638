/** Helpers for the hub content tests: a kernel with the hub plugin (optional plugin config), seats, rooms and calls. */
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';

export interface ContentCall {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- assertions read arbitrary JSON
  headers: Record<string, unknown>;
  raw: Buffer;
}

export interface ContentHub {
  kernel: TestKernel;
  /** JSON (or a Buffer/string sent as is) through the full middleware stack, under `/hub`. */
  call(method: string, url: string, token?: string, payload?: unknown, headers?: Record<string, string>): Promise<ContentCall>;
  /** Registers a seat with the admin key; returns its key. */
  seat(id: string, operator?: boolean): Promise<string>;
  /** Creates a room owned by `token`'s seat (public unless told) and joins the given seats. */
  room(name: string, owner: string, members?: string[], isPrivate?: boolean): Promise<void>;
  stop(): Promise<void>;
}

export async function startContentHub(config: Record<string, unknown> = {}): Promise<ContentHub> {
  const kernel = await createTestKernel({ plugins: [{ plugin: hubPlugin, config }] });
  const call = async (method: string, url: string, token?: string, payload?: unknown, headers: Record<string, string> = {}): Promise<ContentCall> => {
    const res = await kernel.inject({ method, url: `/hub${url}`, token, payload, headers });
    let body: unknown = res.body;
    try {
      body = JSON.parse(res.body);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.statusCode, body, headers: res.headers, raw: res.rawPayload };
  };
  const expectOk = (what: string, res: ContentCall) => {
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  return {
    kernel,
    call,
    seat: async (id, operator = false) => {
      const res = await call('POST', '/agents', kernel.adminToken, { id, operator });
      expectOk(`registering ${id}`, res);
      return res.body.api_key as string;
    },
    room: async (name, owner, members = [], isPrivate = false) => {
      expectOk(`creating ${name}`, await call('POST', '/channels', owner, { name, private: isPrivate }));
      for (const m of members) expectOk(`joining ${name}`, await call('POST', `/channels/${name}/join`, m, {}));
    },
    stop: () => kernel.stop(),
  };
}
