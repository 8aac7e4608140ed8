import { after, before, describe } from 'node:test';
import { docsBlock, fillIn } from '../helpers/docs-config.ts';
import { proxyBrowserScenarios, proxyHttpScenarios } from '../helpers/forward-auth-scenarios.ts';
import { type ForwardAuthStack, startForwardAuthStack } from '../helpers/forward-auth-stack.ts';
import { binarySkip, CADDY_PATH, startCaddy } from '../helpers/proxies.ts';

/**
 * docs/integrations/forward-auth.md behind Debian's real Caddy (forward_auth … copy_headers), with the
 * Caddyfile of docs/integrations/caddy.md: only the site addresses (plain http on a test port; the docs'
 * get automatic HTTPS) and the upstream addresses are changed.
 */
const skip = binarySkip('Caddy', CADDY_PATH, 'apt-get install -y caddy');

describe('forward auth behind Caddy (docs/integrations/caddy.md)', { skip }, () => {
  let stack: ForwardAuthStack;
  before(async () => {
    stack = await startForwardAuthStack((ports) =>
      startCaddy(
        fillIn(docsBlock('integrations/caddy.md', 'caddy'), [
          ['auth.example.com {', `http://auth.gatehouse.test:${ports.proxy} {`],
          ['app.example.com {', `http://app.gatehouse.test:${ports.proxy} {`],
          ['127.0.0.1:3000', `127.0.0.1:${ports.gatehouse}`],
          ['127.0.0.1:8080', `127.0.0.1:${ports.app}`],
        ]),
        ports.proxy,
      ),
    );
  });
  after(async () => stack?.close());

  const behaviour = {
    guestScript: 'unauthenticated',
    unverifiedBody: /Your email address is not verified\./,
    forgedSpellings: 'removed',
  } as const;
  proxyHttpScenarios(() => stack, behaviour);
  proxyBrowserScenarios(() => stack, behaviour);
});
