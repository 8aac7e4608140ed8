// The benchmark's baseline: Fastify with nothing but one route answering what GET /api/user answers,
// serialised through the same response schema. The service's ratio to it is the cost of everything
// Gatehouse adds (plugins, guards, the database), not of Fastify or JSON.
import Fastify from 'fastify';
import { toPublicUser, userSchema } from '../src/http/routes/api/user.ts';
import { benchMemberships } from './organizations.ts';

const now = Date.now();
const user = toPublicUser(
  {
    id: 1,
    name: 'Bench User',
    email: 'bench@example.com',
    emailVerifiedAt: now,
    locale: 'en',
    panelAccess: false,
    disabledAt: null,
    createdAt: now,
    updatedAt: now,
  },
  benchMemberships(),
);

const app = Fastify({ logger: false });
app.get('/api/user', { schema: { response: { 200: userSchema } } }, async () => user);

const port = Number(process.env['PORT'] ?? 0);
await app.listen({ host: '127.0.0.1', port });
const address = app.server.address();
process.stdout.write(
  `bare listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}\n`,
);

const stop = () => app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
