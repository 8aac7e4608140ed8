import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { OAUTH_ROUTES } from '../../oauth/provider-config.ts';
import type { ProviderHost } from '../../oauth/provider-host.ts';
import { deviceGate } from './device-gate.ts';
import { postAsGet } from './post-as-get.ts';
import { carryRequest } from './provider-request.ts';

/** Every path the provider answers, with its methods (OPTIONS: its own CORS preflights). */
const PROVIDER_PATHS: readonly [string, HTTPMethods[]][] = [
  ['/.well-known/openid-configuration', ['GET', 'HEAD', 'OPTIONS']],
  ['/.well-known/oauth-authorization-server', ['GET', 'HEAD', 'OPTIONS']],
  [OAUTH_ROUTES.jwks, ['GET', 'HEAD', 'OPTIONS']],
  [OAUTH_ROUTES.authorization, ['GET']],
  [`${OAUTH_ROUTES.authorization}/:uid`, ['GET']],
  [OAUTH_ROUTES.token, ['POST', 'OPTIONS']],
  [OAUTH_ROUTES.userinfo, ['GET', 'HEAD', 'POST', 'OPTIONS']],
  [OAUTH_ROUTES.introspection, ['POST', 'OPTIONS']],
  [OAUTH_ROUTES.revocation, ['POST', 'OPTIONS']],
  [OAUTH_ROUTES.end_session, ['GET']],
  [`${OAUTH_ROUTES.end_session}/confirm`, ['POST']],
  [`${OAUTH_ROUTES.end_session}/success`, ['GET']],
  [OAUTH_ROUTES.device_authorization, ['POST', 'OPTIONS']],
];

/** The device flow's code page: the person signs in first, and typing codes is throttled. */
const GATED_PATHS: readonly [string, HTTPMethods[]][] = [
  [OAUTH_ROUTES.code_verification, ['GET', 'POST']],
  [`${OAUTH_ROUTES.code_verification}/:uid`, ['GET']],
];

/**
 * The provider mounted in Fastify. Why routes handing the raw request over in their own onRequest
 * hook, rather than @fastify/middie:
 *
 * - Only the provider's own paths reach it, each registered with its methods: the route table (405
 *   with `Allow`, the metrics' route label, the OpenAPI check) knows them like every other route.
 * - onRequest runs before Fastify parses a body, so the provider reads the form bodies it
 *   authenticates clients with itself (a parsed body would be handed over second-hand), and before
 *   the cookie CSRF check (preValidation): the token, introspection and revocation endpoints
 *   authenticate a client, not a browser session, and the browser-facing ones carry the library's own
 *   protection (state and PKCE for authorization, an xsrf value for logout).
 * - The reply is hijacked, so nothing of ours writes to it afterwards; our onResponse hooks (the
 *   request log, metrics) still see it finish. The library's pages get our headers from its own
 *   middleware (provider-headers.ts).
 *
 * The library builds its endpoint URLs (discovery, redirects) from the request's host and scheme:
 * they are set to the issuer's (OIDC_ISSUER), never taken from what a client sent, like every link
 * Gatehouse writes. The client's address is the one Fastify decided under TRUST_PROXY.
 */
/** An answer given before the library's (userinfo-direct.ts): true when it answered. */
export type DirectAnswer = (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;

export function providerRoutes(host: ProviderHost, direct: Readonly<Record<string, DirectAnswer>> = {}) {
  return async function routes(app: FastifyInstance) {
    const issuer = new URL(app.services.config.oidc.issuer);
    const scheme = issuer.protocol.slice(0, -1);
    const bodyLimit = app.services.config.bodyLimitBytes;
    const handOver = async (request: FastifyRequest, reply: FastifyReply) => {
      // A body declared over BODY_LIMIT is 413, as on every other route, in RFC 6749's shape (the
      // library would read 56 KiB of it and answer 400 "failed to parse the request body"; a chunked
      // body, whose size nobody declares, still gets that 400 once it passes 56 KiB). The connection
      // closes: the client may still be sending what nobody will read.
      if (Number(request.headers['content-length'] ?? 0) > bodyLimit) {
        return reply
          .code(413)
          .header('cache-control', 'no-store')
          .header('connection', 'close')
          .send({
            error: 'invalid_request',
            error_description: `the request body is larger than ${bodyLimit} bytes`,
          });
      }
      const { callback } = await host.current();
      carryRequest(request);
      // HEAD (discovery, JWKS, userinfo) is the library's GET: Node already knows not to send a body
      // to a HEAD request (decided when the request arrived), so only the headers go out.
      if (request.raw.method === 'HEAD') request.raw.method = 'GET';
      const headers = request.raw.headers;
      headers.host = issuer.host;
      headers['x-forwarded-proto'] = scheme;
      headers['x-forwarded-for'] = request.ip;
      delete headers['x-forwarded-host'];
      delete headers['x-forwarded-port'];
      reply.hijack();
      callback(request.raw, reply.raw);
    };
    // One hook, not two: a second would run before an answer sent by the first has finished.
    const directFirst = (answer: DirectAnswer) => async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.method !== 'OPTIONS' && (await answer(request, reply))) return reply;
      return handOver(request, reply);
    };
    for (const [url, methods] of [...PROVIDER_PATHS, ...GATED_PATHS]) {
      const gated = GATED_PATHS.some(([path]) => path === url);
      const answer = direct[url];
      app.route({
        method: methods,
        url,
        exposeHeadRoute: false,
        onRequest: gated ? [deviceGate, handOver] : answer ? directFirst(answer) : handOver,
        // Never reached: the onRequest hook answered.
        handler: async () => undefined,
      });
    }
    for (const url of [OAUTH_ROUTES.authorization, OAUTH_ROUTES.end_session]) {
      app.route({ method: 'POST', url, onRequest: postAsGet, handler: async () => undefined });
    }
  };
}
