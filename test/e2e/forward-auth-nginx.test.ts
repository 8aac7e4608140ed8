import { after, before, describe } from 'node:test';
import { docsBlock, fillIn } from '../helpers/docs-config.ts';
import { proxyBrowserScenarios, proxyHttpScenarios } from '../helpers/forward-auth-scenarios.ts';
import { type ForwardAuthStack, startForwardAuthStack } from '../helpers/forward-auth-stack.ts';
import { binarySkip, NGINX_PATH, startNginx } from '../helpers/proxies.ts';

/**
 * docs/integrations/forward-auth.md behind Debian's real nginx (auth_request, auth_request_set,
 * error_page 401), with the configuration of docs/integrations/nginx.md: only host names, the listening
 * port and the upstream addresses are changed.
 */
const skip = binarySkip('nginx', NGINX_PATH, 'apt-get install -y nginx');

describe('forward auth behind nginx (docs/integrations/nginx.md)', { skip }, () => {
  let stack: ForwardAuthStack;
  before(async () => {
    stack = await startForwardAuthStack((ports) =>
      startNginx(
        fillIn(docsBlock('integrations/nginx.md', 'nginx'), [
          ['listen 80;', `listen 127.0.0.1:${ports.proxy};`],
          ['server_name auth.example.com;', 'server_name auth.gatehouse.test;'],
          ['server_name app.example.com;', 'server_name app.gatehouse.test;'],
          ['http://127.0.0.1:3000', `http://127.0.0.1:${ports.gatehouse}`],
          ['http://127.0.0.1:8080', `http://127.0.0.1:${ports.app}`],
        ]),
        ports.proxy,
      ),
    );
  });
  after(async () => stack?.close());

  const behaviour = {
    guestScript: 'login-redirect',
    unverifiedBody: /403 Forbidden/,
    forgedSpellings: 'removed',
  } as const;
  proxyHttpScenarios(() => stack, behaviour);
  proxyBrowserScenarios(() => stack, behaviour);
});
