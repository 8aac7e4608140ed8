import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';

const kRequest = Symbol('gatehouse.request');
type Carrier = IncomingMessage & { [kRequest]?: FastifyRequest };

/**
 * The provider runs on the raw Node request (provider-routes.ts); its hooks and pages reach the
 * Fastify request that carried it — its language, its Gatehouse session, its client address — here.
 */
export function carryRequest(request: FastifyRequest): void {
  (request.raw as Carrier)[kRequest] = request;
}

/** The Fastify request behind a raw request the provider is handling; undefined outside one. */
export function carriedRequest(raw: IncomingMessage | undefined): FastifyRequest | undefined {
  return raw === undefined ? undefined : (raw as Carrier)[kRequest];
}
