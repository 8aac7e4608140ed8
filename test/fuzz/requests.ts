import fc from 'fast-check';

/** One route as Fastify knows it: a method and a path template with :params. */
export interface Route {
  readonly method: string;
  readonly url: string;
}

/**
 * Every route of the app, read from app.printRoutes({ commonPrefix: false }), so a route added later
 * is fuzzed without anyone editing this file. Lines look like `│   ├── /tokens (POST, GET)`; the
 * indentation (4 characters a level) tells the parent.
 */
export function parseRoutes(printed: string): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of printed.split('\n')) {
    const match = /^([\s│├└─]*?)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1]!.length + 4) / 4;
    stack.length = depth - 1;
    // A wildcard is printed without its slash (`api` → `*` is /api/*).
    const segment = match[2]!;
    stack.push(segment === '*' ? '/*' : segment);
    if (!match[3]) continue;
    const url = stack.join('').replace(/\/{2,}/g, '/');
    for (const method of match[3].split(', ')) routes.push({ method, url: url === '' ? '/' : url });
  }
  return routes;
}

/** Values a real client could have: the seeded account, its token, sessions and CSRF tokens. */
export interface Credentials {
  readonly email: string;
  readonly password: string;
  readonly userId: number;
  readonly adminId: number;
  readonly token: string;
  readonly tokenId: number;
  readonly webCookie: string;
  readonly webCsrf: string;
  readonly adminCookie: string;
  readonly adminCsrf: string;
  /** METRICS_TOKEN, for GET /metrics. */
  readonly metricsToken: string;
  /** The slug of an organization the user owns (docs/guides/organizations.md). */
  readonly orgSlug: string;
  /** The id of that organization. */
  readonly orgId: number;
  /** An OpenID Connect client the user allowed (docs/guides/oidc-provider.md "Connected apps"). */
  readonly clientId: string;
}

export interface FuzzRequest {
  readonly route: Route;
  readonly method: string | null;
  readonly params: readonly string[];
  readonly query: readonly (readonly [string, string])[];
  readonly headers: Readonly<Record<string, HeaderChoice>>;
  readonly body: BodyChoice;
  readonly contentType: string | null;
  readonly csrf: 'none' | 'field' | 'header' | 'garbage';
  readonly remoteAddress: string;
}

export type HeaderChoice =
  | string
  | { readonly credential: keyof Credentials | 'session'; readonly prefix?: string };

export type BodyChoice =
  | { readonly kind: 'none' }
  | { readonly kind: 'json' | 'form'; readonly value: Record<string, unknown> }
  | { readonly kind: 'raw'; readonly text: string }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | { readonly kind: 'big' | 'deep-json' | 'deep-form' };

/** Strings that have broken web applications before. */
const NASTY = [
  '',
  ' ',
  '\u0000',
  'a\u0000b@example.com',
  '\r\n',
  'Eve\r\nBcc: victim@example.com',
  'eve@example.com\r\nBcc: victim@example.com',
  'eve@example.com\nX-Injected: 1',
  '"eve"@example.com',
  'eve@example.com>',
  '👩‍💻 Ada',
  '\u202eevil',
  '\ud800',
  '\ufeff',
  'é',
  'İ@example.com',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' OR 1=1 --",
  "'; DROP TABLE users; --",
  '%00',
  '%ZZ',
  '../../../etc/passwd',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, on purpose
  '${7*7}',
  '{{constructor.constructor("return process")()}}',
  '__proto__',
  'constructor',
  'null',
  'true',
  '0',
  '-1',
  '1e309',
  'NaN',
  '9007199254740993',
  'a'.repeat(256),
  'a'.repeat(5000),
  `${'a'.repeat(250)}@example.com`,
  'user@example.com',
  'USER@Example.COM',
  '//evil.example',
  'https://evil.example',
  '/\\evil.example',
  'javascript:alert(1)',
];

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.emailAddress() },
);

const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.array(nastyString, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(nastyString, nastyString, { maxKeys: 2 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** The body fields the service's forms and JSON endpoints read. */
export const BODY_FIELDS = [
  'email',
  'password',
  'password_confirmation',
  'current_password',
  'name',
  'device_name',
  'abilities',
  'expires_in',
  'token',
  'title',
  'body',
  'remember',
  '_method',
  'credential',
  'slug',
  'role',
  'organization_id',
  'expires',
  'signature',
  // The OpenID provider's machine endpoints (docs/guides/oidc-provider.md): tokens, devices, registration.
  'grant_type',
  'client_id',
  'scope',
  'device_code',
  'user_code',
  'xsrf',
  'confirm',
  'redirect_uris',
  'grant_types',
  'token_endpoint_auth_method',
];

const FIELDS = [...BODY_FIELDS, 'q', '_token'];

const fieldName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...FIELDS) },
  { weight: 1, arbitrary: nastyString },
);

/** Mostly well-shaped forms (so validation and the handlers behind it are reached), some garbage. */
const formObject: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { weight: 3, arbitrary: fc.dictionary(fieldName, value, { maxKeys: 6 }) },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        name: fc.oneof(nastyString, fc.constant('Fuzzy Tester')),
        email: fc.oneof(nastyString, fc.constantFrom('fuzz@example.com', '{email}')),
        password: fc.oneof(nastyString, fc.constantFrom('long enough password 1', '{password}')),
        password_confirmation: fc.oneof(nastyString, fc.constant('long enough password 1')),
        device_name: nastyString,
        abilities: fc.oneof(
          fc.array(fc.constantFrom('*', 'posts:read', 'posts:write', 'x'), { maxLength: 3 }),
          value,
        ),
        expires_in: fc.oneof(fc.integer(), value),
        title: nastyString,
        body: nastyString,
        remember: fc.oneof(fc.constantFrom('1', 'on', 'true'), value),
        current_password: fc.oneof(nastyString, fc.constant('{password}')),
        _method: fc.oneof(fc.constantFrom('PUT', 'PATCH', 'DELETE', 'delete', 'GET'), value),
        slug: fc.oneof(nastyString, fc.constantFrom('acme', 'fuzz-org', '{orgSlug}', 'UPPER', 'a')),
        role: fc.oneof(fc.constantFrom('owner', 'admin', 'member', 'billing', 'root'), value),
        organization_id: fc.oneof(fc.constantFrom('{orgId}', '1', '0', '-1'), fc.integer(), value),
      },
      { requiredKeys: [] },
    ),
  },
);

const RAW_BODIES = [
  '{',
  '{"email":',
  '[]',
  '"just a string"',
  '123',
  'null',
  '{"__proto__":{"admin":true},"email":"a@b.c"}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '{"email":"a@b.c","email":"b@c.d"}',
  '\u0000\u0001\u0002',
  'email=a%40b.c&email=b%40c.d&password=x',
  'email=%E0%A4%A&password=%',
  '_token[]=x&email[]=a',
  '\ufeff{"email":"a@b.c"}',
];

const body: fc.Arbitrary<BodyChoice> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 6, arbitrary: formObject.map((v) => ({ kind: 'json' as const, value: v })) },
  { weight: 6, arbitrary: formObject.map((v) => ({ kind: 'form' as const, value: v })) },
  { weight: 2, arbitrary: fc.constantFrom(...RAW_BODIES).map((text) => ({ kind: 'raw' as const, text })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((text) => ({ kind: 'raw' as const, text })) },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ kind: 'bytes' as const, bytes })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { kind: 'big' as const },
      { kind: 'deep-json' as const },
      { kind: 'deep-form' as const },
    ),
  },
);

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/x-www-form-urlencoded',
  'text/plain',
  'multipart/form-data; boundary=xyz',
  'application/json; charset=utf-16',
  'application/vnd.api+json',
  'application/xml',
  'application/json\u00e9',
  ';;;',
  '',
];

/** Header values a client can really send (no CR/LF/NUL: Node's HTTP parser refuses those itself). */
const headerText = fc
  .oneof(
    fc.constantFrom(...NASTY),
    fc.string({ maxLength: 60 }),
    fc.string({ unit: 'binary', maxLength: 30 }),
  )
  // Control characters (CR, LF, NUL…) are what a header cannot carry.
  .map((s) => [...s].filter((c) => c >= ' ' && c <= '\u00ff' && c !== '\u007f').join(''));

const credential = (name: keyof Credentials | 'session', prefix?: string): HeaderChoice =>
  prefix === undefined ? { credential: name } : { credential: name, prefix };

const headers: fc.Arbitrary<Record<string, HeaderChoice>> = fc.record(
  {
    authorization: fc.oneof(
      { weight: 6, arbitrary: fc.constant(credential('token', 'Bearer ')) },
      fc.constant(credential('metricsToken', 'Bearer ')),
      { weight: 2, arbitrary: fc.constant('') },
      fc.constantFrom(
        'Bearer ',
        'Bearer 1|abc',
        'Basic Zm9vOmJhcg==',
        'bearer  1|',
        `Bearer 99999999999|${'a'.repeat(48)}`,
      ),
      headerText.map((s) => `Bearer ${s}`),
      headerText,
    ),
    cookie: fc.oneof(
      // The session of the guard that owns the path (web or admin), so CSRF-protected handlers are reached.
      { weight: 6, arbitrary: fc.constant(credential('session')) },
      fc.constant(credential('webCookie')),
      fc.constant(credential('adminCookie')),
      headerText.map((s) => `gatehouse_session=${s}`),
      headerText.map((s) => `gatehouse_remember=${s}`),
      headerText.map((s) => `gatehouse_admin_session=${s}; locale=${s}`),
      fc.constantFrom('locale=de', 'locale=xx', 'XSRF-TOKEN=x', '=', ';;;', 'a=b=c'),
      headerText,
    ),
    origin: fc.oneof(
      fc.constantFrom('http://localhost:3000', 'http://127.0.0.1:8000', 'http://evil.example', 'null'),
      headerText,
    ),
    referer: fc.oneof(fc.constantFrom('http://localhost:3000/app', 'http://evil.example/'), headerText),
    accept: fc.constantFrom(
      'application/json',
      'text/html',
      '*/*',
      'application/json, text/html',
      'text/*;q=x',
    ),
    'accept-language': fc.oneof(fc.constantFrom('de', 'fr-CH, fr;q=0.9', 'xx', '*', 'es;q=abc'), headerText),
    'x-csrf-token': headerText,
    'x-xsrf-token': headerText,
    'x-forwarded-for': fc.oneof(fc.constantFrom('1.2.3.4', '::1, 10.0.0.1', 'garbage'), headerText),
    host: fc.constantFrom('gatehouse.test', 'evil.example', 'localhost:3000', '[::1]:80'),
  },
  { requiredKeys: ['cookie', 'authorization'] },
);

/** Path parameters: ids of seeded rows, numbers of every shape, and garbage (percent-encoded). */
const param: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{userId}',
    '{adminId}',
    '{tokenId}',
    // Login providers the fuzzed app configures (/auth/{provider}).
    'github',
    'acme',
    '{orgSlug}',
    '{clientId}',
    'me',
    '1',
    '0',
    '-1',
    '01',
    '1.5',
    '2147483648',
    '99999999999999999999',
  ),
  fc.nat().map(String),
  nastyString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ''))),
  fc.constantFrom('%00', '%ZZ', '..', '%2F', '%C0%AF', 'a'.repeat(250)),
);

const QUERY_KEYS = [
  'lang',
  'email',
  'expires',
  'signature',
  'token',
  'q',
  'sort',
  'page',
  'name',
  'redirect',
  // /auth/{provider} and its callback, /login's sign-in failure.
  'link',
  'remember',
  'code',
  'state',
  'iss',
  'error',
  'sign_in_error',
  'provider',
  '__proto__',
  'a[]',
];

const query = fc.array(
  fc.tuple(
    fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ maxLength: 8 })),
    fc.oneof(fc.constantFrom('de', 'xx', '1', '-1', '99999999999', '{email}'), nastyString),
  ),
  { maxLength: 3 },
);

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND'];

export function fuzzRequest(routes: readonly Route[]): fc.Arbitrary<FuzzRequest> {
  return fc.record({
    route: fc.constantFrom(...routes),
    // Mostly the route's own method, so handlers (not only the 404 path) are exercised.
    method: fc.oneof(
      { weight: 5, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
    ),
    params: fc.array(param, { minLength: 3, maxLength: 3 }),
    query,
    headers,
    body,
    contentType: fc.oneof(
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    ),
    csrf: fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom('none' as const, 'garbage' as const) },
      { weight: 2, arbitrary: fc.constantFrom('field' as const, 'header' as const) },
    ),
    remoteAddress: fc.oneof(fc.constantFrom('127.0.0.1', '::1', '10.0.0.7'), fc.ipV4()),
  });
}
