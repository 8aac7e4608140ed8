import { after, before, describe } from 'node:test';
import { proxyBrowserScenarios, proxyHttpScenarios } from '../helpers/forward-auth-scenarios.ts';
import { type ForwardAuthStack, startForwardAuthStack } from '../helpers/forward-auth-stack.ts';
import { binarySkip, CADDY_PATH, startCaddy } from '../helpers/proxies.ts';
import { fillIn, readmeBlock } from '../helpers/readme-config.ts';

/**
 * docs/integrations/forward-auth.md behind Debian's real Caddy (forward_auth … copy_headers), with the README's Caddyfile:
 * only the site addresses (plain http on a test port; the README's get automatic HTTPS) and the
 * upstream addresses are changed.
 */
const skip = binarySkip('Caddy', CADDY_PATH, 'apt-get install -y caddy');

describe('forward auth behind Caddy (the README configuration)', { skip }, () => {
  let stack: ForwardAuthStack;
  before(async () => {
    stack = await startForwardAuthStack((ports) =>
      startCaddy(
        fillIn(readmeBlock('caddy'), [
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
  } as const;
  proxyHttpScenarios(() => stack, behaviour);
  proxyBrowserScenarios(() => stack, behaviour);
});
