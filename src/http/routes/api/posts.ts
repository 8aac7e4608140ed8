import type { FastifyInstance } from 'fastify';
import { field, rules, validate } from '../../../lib/validation.ts';
import { apiAuth, requireJson } from './support.ts';

export const postSchema = {
  title: field.required(rules.string(), rules.max(255)),
  body: field.required(rules.string(), rules.max(65535)),
};

export async function postRoutes(app: FastifyInstance) {
  const { posts } = app.services;

  app.get(
    '/api/posts',
    { preHandler: apiAuth(app, { ability: 'posts:read', oauth: true }) },
    async (request) => ({
      data: await posts.list(request.identity!.user.id),
    }),
  );

  app.post(
    '/api/posts',
    { preHandler: [apiAuth(app, { ability: 'posts:write', oauth: true }), requireJson] },
    async (request, reply) => {
      const input = validate<{ title: string; body: string }>(request.body, postSchema, request.t);
      const post = await posts.create(request.identity!.user.id, input);
      return reply.code(201).send({ data: post });
    },
  );
}
