import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  decide,
  forgesUserHeaders,
  parseRequirements,
  userHeaders,
} from '../../../forward-auth/forward-check.ts';
import { originalUrl } from '../../../forward-auth/original-url.ts';
import { bearerChallenge, unauthenticatedChallenge } from '../../bearer-challenge.ts';
import { acceptsHtml } from '../../negotiation.ts';
import { resolveIdentity } from '../../plugins/auth.ts';
import { trustedPeer } from '../../trust-proxy.ts';

/** The web session cookie first (a person in a browser), else a bearer token (a script, a CLI). */
const FORWARD_GUARDS: readonly string[] = ['web', 'api'];

/**
 * docs/integrations/forward-auth.md: `GET /auth/request` (nginx auth_request) and `GET /auth/forward` (Traefik ForwardAuth,
 * Caddy forward_auth). A proxy asks one of them before every request to the app it protects, so they
 * do exactly the work of a bearer check: the session or token lookup through the auth cache
 * (auth/cache/; sessions are only peeked at: nothing is written per request beyond the once-a-minute
 * activity stamp every session and token gets), and the proxy never caches the answers.
 */
export async function forwardAuthRoutes(app: FastifyInstance) {
  const { config, orgs } = app.services;
  const trusted = trustedPeer(config.trustProxy);

  /** `{APP_URL}/login`, with `?redirect=` when a believed proxy told us a URL /login would go back to. */
  const loginUrl = (request: FastifyRequest): string => {
    const login = `${config.appUrl}/login`;
    if (!trusted(request.socket.remoteAddress)) return login;
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value.split(',')[0]!.trim() : undefined;
    };
    const original = originalUrl({
      proto: header('x-forwarded-proto'),
      host: header('x-forwarded-host'),
      uri: header('x-forwarded-uri') ?? header('x-original-uri'),
    });
    // Passed on as the proxy reported it (re-serialised); /login alone decides whether to go back
    // there (FORWARD_AUTH_DOMAINS), so there is one gate, not two that could disagree.
    return original === null ? login : `${login}?redirect=${encodeURIComponent(original)}`;
  };

  const check = (forward: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    // A proxy must never keep or share an answer: it is about one browser's session, right now.
    reply.header('cache-control', 'no-store');
    if (forgesUserHeaders(request.raw.rawHeaders)) {
      return reply.code(400).send({ message: request.t('forward.forged_user_headers') });
    }
    const requirements = parseRequirements(request.query as Record<string, unknown>);
    if ('invalid' in requirements) {
      // A configuration error of the proxy, not of the visitor: said plainly, in docs/reference/errors.md's shape.
      const field = requirements.invalid;
      const message =
        field === 'verified'
          ? request.t('validation.boolean', { attribute: field })
          : request.t('validation.format', { attribute: field });
      return reply.code(422).send({ message, errors: { [field]: [message] } });
    }
    const identity = await resolveIdentity(request, FORWARD_GUARDS, { peek: true });
    const decision = decide(identity, requirements);
    switch (decision.status) {
      case 'allowed':
        // The memberships lookup is kept like the session's (services.ts): no query while nothing changed.
        return reply
          .code(200)
          .headers(userHeaders(decision.user, await orgs.membershipsOf(decision.user.id)))
          .send();
      case 'unverified':
        return reply.code(403).send({ message: request.t('auth.unverified') });
      case 'missing-ability':
        reply.header('www-authenticate', bearerChallenge(config.appName, 'insufficient_scope'));
        return reply.code(403).send({ message: request.t('auth.invalid_ability') });
      case 'guest': {
        const login = loginUrl(request);
        // Traefik and Caddy hand this answer to the browser: a page visit goes to the login wall.
        if (forward && acceptsHtml(request)) return reply.redirect(login, 302);
        reply.header('www-authenticate', unauthenticatedChallenge(request));
        // nginx keeps the answer to itself: `auth_request_set … $upstream_http_location` and
        // `error_page 401 =302 …` send the browser to the login wall (README, docs/forward-auth/).
        if (!forward) reply.header('location', login);
        return reply.code(401).send({ message: request.t('auth.unauthenticated') });
      }
    }
  };

  app.get('/auth/request', check(false));
  app.get('/auth/forward', check(true));
}
