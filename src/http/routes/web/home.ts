import type { FastifyInstance } from 'fastify';
import { homePage } from '../../views/pages/home.ts';
import { currentAccount, sendPage } from './support.ts';

export async function homeRoutes(app: FastifyInstance) {
  app.get('/', async (request, reply) => {
    const account = await currentAccount(request);
    const status = request.sessionOf('web').flashed('status');
    return sendPage(reply, homePage(request, account, status));
  });
}
