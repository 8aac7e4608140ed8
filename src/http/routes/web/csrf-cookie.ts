import type { FastifyInstance } from 'fastify';

/**
 * Sanctum's `GET /sanctum/csrf-cookie`: an SPA calls it first. 204 with the session cookie (a new
 * id when the browser has none) and the JavaScript-readable XSRF-TOKEN bound to that session, which
 * axios (`withXSRFToken`) or the SPA's own code copies into the X-XSRF-TOKEN header.
 * No session row is written: a guest's id only becomes a row once there is something to keep.
 */
export async function csrfCookieRoutes(app: FastifyInstance) {
  app.get('/sanctum/csrf-cookie', async (request, reply) => {
    const session = request.sessionOf('web');
    // A signed-in session from before ids were tagged keeps its id (and its login) only once its row
    // is found; an id we issued needs no read.
    await session.settleId();
    session.shareCsrfToken();
    return reply.code(204).send();
  });
}
