import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { OAUTH_ROUTES } from '../../oauth/provider-config.ts';
import { registerPublicClient } from '../../oauth/registration.ts';
import { NotFoundError } from '../errors.ts';
import { auditContext } from '../request-context.ts';

/**
 * Registration requests per client address, refused ones included (probing the rules is limited too),
 * on the shared rate-limit store (docs/guides/oidc-provider.md).
 */
const REGISTRATION_LIMIT = { max: 20, windowSeconds: 3600 };

/**
 * POST /oauth/register (RFC 7591), only with OIDC_DYNAMIC_REGISTRATION=true; otherwise the route
 * answers 404 like a path that does not exist. Every refusal is RFC 7591's JSON (§3.2.2), whatever
 * was wrong with the request — its body, its type, its size — never a 5xx.
 */
export async function registrationRoutes(app: FastifyInstance) {
  const { config, oauth, limiter } = app.services;
  const refuse = (reply: FastifyReply, description: string) =>
    reply.code(400).send({ error: 'invalid_client_metadata', error_description: description });
  // Answered in onRequest, before Fastify parses a body or runs the cookie CSRF check: like the
  // token endpoint (provider-routes.ts), it serves programs, which carry no session cookie.
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!config.oidc.dynamicRegistration) throw new NotFoundError();
    const attempt = await limiter.attempt(`oauth-register:ip:${request.ip}`, REGISTRATION_LIMIT);
    if (!attempt.allowed) {
      reply.header('retry-after', String(attempt.retryAfterSeconds));
      return reply.code(429).send({
        error: 'invalid_request',
        error_description: 'too many registrations from this address; try again later',
      });
    }
    if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
      return refuse(reply, 'the body must be application/json');
    }
    const text = await readBody(request, MAX_BODY_BYTES);
    if (text === null) return refuse(reply, `the body is larger than ${MAX_BODY_BYTES} bytes`);
    let metadata: unknown;
    try {
      metadata = JSON.parse(text);
    } catch {
      return refuse(reply, 'the body is not valid JSON');
    }
    const result = await registerPublicClient(oauth.clients, metadata, auditContext(request));
    if (!result.ok) {
      return reply.code(400).send({ error: result.error, error_description: result.description });
    }
    return reply.code(201).header('cache-control', 'no-store').send(result.client);
  };
  app.post(OAUTH_ROUTES.registration, { onRequest: handle }, async () => undefined);
}

/** Client metadata is small; anything past this is refused before it is read whole. */
const MAX_BODY_BYTES = 64 * 1024;

async function readBody(request: FastifyRequest, limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    size += (chunk as Buffer).length;
    if (size > limit) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** With registration on, discovery names its endpoint (RFC 8414 `registration_endpoint`). */
export function registrationInDiscovery(enabled: boolean, issuer: string) {
  return async function discovery(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
    await next();
    if (!enabled || ctx.oidc?.route !== 'discovery' || ctx.status !== 200) return;
    ctx.body = { ...(ctx.body as object), registration_endpoint: `${issuer}${OAUTH_ROUTES.registration}` };
  };
}
