import type { FastifyInstance } from 'fastify';
import { confirmPasswordRoutes } from './confirm-password.ts';

/**
 * Account self-service under /user (CONTRACT §10): the web session guard (a guest gets 302 /login,
 * JSON 401), CSRF on every change, password confirmation where the contract asks for it
 * (http/password-confirmation.ts). Forms reach PUT and DELETE through `_method` (http/form-methods.ts).
 */
export async function accountRoutes(app: FastifyInstance) {
  await app.register(confirmPasswordRoutes);
}
