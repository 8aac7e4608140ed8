import type { FastifyInstance } from 'fastify';
import { sendPage } from '../../pages.ts';
import { homePage } from '../../views/pages/home.ts';
import { currentAccount } from './support.ts';

export async function homeRoutes(app: FastifyInstance) {
  app.get('/', async (request, reply) => {
    const session = await request.sessionOf('web').load();
    const account = await currentAccount(request);
    const status = session.flashed('status');
    return sendPage(reply, homePage(request, account, status));
  });
}
