import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { escapeHtml } from '../../src/lib/html.ts';

/** The user headers forward authentication hands the app (docs/integrations/forward-auth.md). */
export const USER_HEADERS = [
  'x-auth-user-id',
  'x-auth-user-email',
  'x-auth-user-name',
  'x-auth-user-verified',
] as const;

/** One request that reached the app through the proxy. */
export interface AppRequest {
  readonly method: string;
  readonly url: string;
  readonly host: string | undefined;
  /** The X-Auth-User-* headers as received (UTF-8 decoded), absent ones left out. */
  readonly user: Partial<Record<(typeof USER_HEADERS)[number], string>>;
  /**
   * Every header a CGI or PHP app would read as one of USER_HEADERS (cgiName), by the name it arrived
   * under, in arrival order: `X_Auth_User_Id` and `X.Auth.User.Id` are both $_SERVER['HTTP_X_AUTH_USER_ID'].
   */
  readonly identity: ReadonlyArray<readonly [name: string, value: string]>;
  readonly body: string;
}

/**
 * The variable a header becomes in a CGI environment as PHP fills $_SERVER: `HTTP_`, upper case, `-`
 * turned into `_` by the web server and `.` into `_` by PHP itself; `_` stays. So every spelling with
 * `-`, `_` or `.` between the words is the same variable, and whichever comes last wins.
 */
export function cgiName(header: string): string {
  return `HTTP_${header.toUpperCase().replace(/[-.]/g, '_')}`;
}

const IDENTITY = new Set(USER_HEADERS.map(cgiName));

function identityOf(rawHeaders: readonly string[]): AppRequest['identity'] {
  const found: [string, string][] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (IDENTITY.has(cgiName(rawHeaders[i]!))) found.push([rawHeaders[i]!, utf8(rawHeaders[i + 1]!)]);
  }
  return found;
}

export interface ProtectedApp {
  readonly port: number;
  /** Every request that got through, oldest first. */
  readonly seen: AppRequest[];
  close(): Promise<void>;
}

/** Header values are bytes; Gatehouse sends names as UTF-8, which Node hands over as latin1. */
const utf8 = (value: string) => Buffer.from(value, 'latin1').toString('utf8');

function userOf(headers: IncomingHttpHeaders): AppRequest['user'] {
  const user: Record<string, string> = {};
  for (const name of USER_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') user[name] = utf8(value);
  }
  return user;
}

/**
 * The application behind the login wall: it has no login of its own and trusts the proxy's
 * X-Auth-User-* headers, as the apps forward auth is for do. It shows them on an HTML page (the
 * browser tests read the e-mail off it) and records every request it gets.
 */
export async function startProtectedApp(): Promise<ProtectedApp> {
  const seen: AppRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: AppRequest = {
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        host: request.headers.host,
        user: userOf(request.headers),
        identity: identityOf(request.rawHeaders),
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(entry);
      const email = entry.user['x-auth-user-email'] ?? '(nobody)';
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(
        '<!doctype html><html lang="en"><head><title>Protected app</title></head><body>' +
          `<h1>Protected app</h1><p>Signed in as <output id="user-email">${escapeHtml(email)}</output></p>` +
          `<p>You asked for <code id="path">${escapeHtml(entry.url)}</code></p></body></html>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
