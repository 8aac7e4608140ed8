import type * as OidcProvider from 'oidc-provider';

/**
 * The oidc-provider module, handed in by whoever mounts the provider (http/oauth/). The domain only
 * imports its types: loading the library prints a warning on Node 20 (docs/guides/oidc-provider.md
 * "Node 20"), which the command-line tools, which never run the provider, must not print.
 */
export type OidcLibrary = typeof OidcProvider;
