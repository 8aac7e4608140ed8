import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Site } from '../views/view-context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The installation as pages show it (views/view-context.ts). */
    readonly site: Site;
    /** A guard's CSRF token for this browser's session (the frame's log-out forms). */
    csrfToken(guard: string): string;
  }
}

/**
 * Makes a request a view context (views/view-context.ts): the installation's name, languages and clock,
 * built once, and a guard's CSRF token. Views receive the request as that small interface only.
 */
export const viewContextPlugin = fp(
  async (app) => {
    const { config, i18n, clock } = app.services;
    const site: Site = Object.freeze({
      appName: config.appName,
      locales: i18n.locales,
      now: () => clock.now(),
    });
    app.decorateRequest('site', {
      getter() {
        return site;
      },
    });
    app.decorateRequest('csrfToken', function (this: FastifyRequest, guard: string) {
      return this.sessionOf(guard).csrfToken();
    });
  },
  { name: 'gatehouse-view-context', dependencies: ['gatehouse-session'] },
);
