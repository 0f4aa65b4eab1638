/**
 * A browser-like HTTP client for the sign-in tests: a cookie jar fed by Set-Cookie, the CSRF token
 * the sign-in answered, and the headers a browser adds (Origin on unsafe requests, Sec-Fetch-Site).
 * Every header can be overridden to play a hostile page.
 */
export interface BrowserAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
  setCookies: string[];
}

export interface BrowserRequest {
  body?: unknown;
  headers?: Record<string, string>;
  /** Send the CSRF header with the token the sign-in answered (default: true on unsafe methods). */
  csrf?: boolean;
}

export class CookieJar {
  readonly cookies = new Map<string, string>();

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  take(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const maxAge = attributes.find((a) => /^max-age=/i.test(a));
      if (!value || (maxAge && Number(maxAge.split('=')[1]) <= 0)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

export class TestBrowser {
  readonly jar = new CookieJar();
  csrf: string | null = null;

  /** `origin` is the page's origin (default: the server's own, as a page Keel served would have). */
  constructor(readonly baseUrl: string, readonly origin: string = baseUrl) {}

  async request<T = Record<string, unknown>>(method: string, path: string, options: BrowserRequest = {}): Promise<BrowserAnswer<T>> {
    const unsafe = !['GET', 'HEAD'].includes(method);
    const headers: Record<string, string> = { 'sec-fetch-site': 'same-origin' };
    if (unsafe) headers.origin = this.origin;
    if (this.jar.cookies.size) headers.cookie = this.jar.header();
    if ((options.csrf ?? unsafe) && this.csrf) headers['x-keel-csrf'] = this.csrf;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    Object.assign(headers, options.headers);
    for (const [name, value] of Object.entries(headers)) if (value === '') delete headers[name];
    const res = await fetch(this.baseUrl + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const setCookies = res.headers.getSetCookie();
    this.jar.take(setCookies);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, headers: res.headers, setCookies };
  }

  async login(token: string): Promise<BrowserAnswer> {
    const answer = await this.request('POST', '/api/gateway/session/login', { body: { token } });
    if (answer.status === 200) this.csrf = String(answer.body.csrf_token);
    return answer;
  }

  async claim(code: string): Promise<BrowserAnswer> {
    const answer = await this.request('POST', '/api/gateway/session/claim', { body: { code } });
    if (answer.status === 200) this.csrf = String(answer.body.csrf_token);
    return answer;
  }

  /** The session cookie's value, to replay it after the browser forgot it. */
  sessionCookie(): string {
    const value = this.jar.cookies.get('keel_session');
    if (!value) throw new Error('this browser holds no session cookie');
    return value;
  }
}
