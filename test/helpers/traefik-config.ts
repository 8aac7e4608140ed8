/**
 * Reads the two Traefik configurations of docs/integrations/traefik.md (Docker labels in a compose
 * file, and the file provider's dynamic configuration) into one shape the Traefik model runs
 * (traefik-forward-auth.ts): so the routers, middlewares and services shown to readers are the ones the tests use.
 */

type Yaml = string | Yaml[] | { [key: string]: Yaml };

export interface TraefikRouter {
  readonly name: string;
  /** Host(`…`), compared without the port as Traefik does. */
  readonly host: string;
  /** && PathPrefix(`…`) */
  readonly pathPrefix: string | null;
  /** Traefik's default priority: the length of the rule (the longer, more specific rule wins). */
  readonly priority: number;
  readonly middlewares: readonly string[];
  readonly service: string;
}

export interface TraefikForwardAuth {
  readonly address: string;
  readonly authResponseHeaders: readonly string[];
  readonly trustForwardHeader: boolean;
}

export interface TraefikConfig {
  readonly routers: readonly TraefikRouter[];
  readonly middlewares: Readonly<Record<string, TraefikForwardAuth>>;
  /** Service name → the URL of its one server. */
  readonly services: Readonly<Record<string, string>>;
}

/** The file provider's YAML (`http: routers / middlewares / services`). */
export function fromFileProvider(text: string): TraefikConfig {
  return fromTree(lowerKeys(object(object(parseYaml(text), 'document')['http'], 'http')), {});
}

/**
 * A compose file's `labels` (`traefik.http.…=value`, keys case-insensitive as in Traefik). A router
 * without a service gets its container's, whose address `containers` gives (in Docker: the
 * container's name and its `loadbalancer.server.port`).
 */
export function fromDockerLabels(text: string, containers: Readonly<Record<string, string>>): TraefikConfig {
  const tree: { [key: string]: Yaml } = {};
  const ownService: Record<string, string> = {};
  for (const [container, spec] of Object.entries(
    object(object(parseYaml(text), 'compose')['services'], 'services'),
  )) {
    for (const label of list(object(spec, container)['labels'], `${container}.labels`)) {
      const match = /^traefik\.http\.([^=]+)=(.*)$/.exec(String(label));
      if (!match) throw new Error(`label the model does not know: ${String(label)}`);
      const path = match[1]!.toLowerCase().split('.');
      let node = tree;
      for (const key of path.slice(0, -1)) {
        node[key] ??= {};
        node = node[key] as { [key: string]: Yaml };
      }
      node[path.at(-1)!] = match[2]!;
      if (path[0] === 'routers') ownService[path[1]!] = container;
    }
  }
  return fromTree(tree, ownService, containers);
}

function fromTree(
  tree: { [key: string]: Yaml },
  defaultService: Readonly<Record<string, string>>,
  containers: Readonly<Record<string, string>> = {},
): TraefikConfig {
  const routers = Object.entries(object(tree['routers'] ?? {}, 'routers')).map(([name, spec]) => {
    const router = object(spec, name);
    const rule = String(router['rule']);
    const match = /^Host\(`([^`]+)`\)(?: && PathPrefix\(`([^`]+)`\))?$/.exec(rule);
    if (!match) throw new Error(`router ${name}: a rule the model does not know: ${rule}`);
    const middlewares = router['middlewares'] ?? [];
    return {
      name,
      host: match[1]!,
      pathPrefix: match[2] ?? null,
      priority: rule.length,
      middlewares:
        typeof middlewares === 'string' ? middlewares.split(',') : list(middlewares, name).map(String),
      service: String(router['service'] ?? defaultService[name]),
    };
  });
  const middlewares = Object.fromEntries(
    Object.entries(object(tree['middlewares'] ?? {}, 'middlewares')).map(([name, spec]) => {
      const auth = object(object(spec, name)['forwardauth'], `${name}.forwardAuth`);
      const headers = auth['authresponseheaders'] ?? [];
      return [
        name,
        {
          address: String(auth['address']),
          authResponseHeaders:
            typeof headers === 'string' ? headers.split(',') : list(headers, name).map(String),
          trustForwardHeader: auth['trustforwardheader'] === 'true',
        },
      ];
    }),
  );
  const services: Record<string, string> = { ...containers };
  for (const [name, spec] of Object.entries(object(tree['services'] ?? {}, 'services'))) {
    const servers = object(object(spec, name)['loadbalancer'], `${name}.loadBalancer`)['servers'];
    if (servers !== undefined) services[name] = String(object(list(servers, name)[0]!, name)['url']);
  }
  return { routers, middlewares, services };
}

function object(value: Yaml | undefined, what: string): { [key: string]: Yaml } {
  if (value === undefined || typeof value === 'string' || Array.isArray(value)) {
    throw new Error(`Traefik configuration: ${what} is not a mapping`);
  }
  return value;
}

function list(value: Yaml | undefined, what: string): Yaml[] {
  if (!Array.isArray(value)) throw new Error(`Traefik configuration: ${what} is not a list`);
  return value;
}

function lowerKeys(tree: { [key: string]: Yaml }): { [key: string]: Yaml } {
  const lower = (value: Yaml): Yaml =>
    typeof value === 'string' || Array.isArray(value) ? value : lowerKeys(value);
  return Object.fromEntries(Object.entries(tree).map(([key, value]) => [key.toLowerCase(), lower(value)]));
}

/**
 * The YAML the docs' blocks use, and no more: nested mappings by indentation, `- item` lists (of
 * scalars or mappings), `[a, b]` lists, double-quoted or plain scalars, `#` comment lines.
 */
export function parseYaml(text: string): Yaml {
  const lines = text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'))
    .map((line) => ({ indent: line.search(/\S/), text: line.trim() }));
  let at = 0;
  const scalar = (raw: string): Yaml => {
    if (raw.startsWith('[') && raw.endsWith(']'))
      return raw
        .slice(1, -1)
        .split(',')
        .map((item) => scalar(item.trim()));
    return raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  };
  const block = (indent: number): Yaml =>
    lines[at]!.text.startsWith('- ') ? sequence(indent) : mapping(indent);
  const sequence = (indent: number): Yaml[] => {
    const items: Yaml[] = [];
    while (at < lines.length && lines[at]!.indent === indent && lines[at]!.text.startsWith('- ')) {
      const rest = lines[at]!.text.slice(2);
      if (/^[\w.-]+:( |$)/.test(rest)) {
        lines[at] = { indent: indent + 2, text: rest };
        items.push(mapping(indent + 2));
      } else {
        items.push(scalar(rest));
        at++;
      }
    }
    return items;
  };
  const mapping = (indent: number): { [key: string]: Yaml } => {
    const entries: { [key: string]: Yaml } = {};
    while (at < lines.length && lines[at]!.indent === indent && !lines[at]!.text.startsWith('- ')) {
      const match = /^([\w.-]+):(?: (.*))?$/.exec(lines[at]!.text);
      if (!match) throw new Error(`YAML the model does not read: ${lines[at]!.text}`);
      at++;
      const nested = at < lines.length && lines[at]!.indent > indent;
      entries[match[1]!] = match[2] !== undefined ? scalar(match[2]) : nested ? block(lines[at]!.indent) : '';
    }
    return entries;
  };
  const document = block(lines[0]?.indent ?? 0);
  if (at !== lines.length) throw new Error(`YAML the model does not read: ${lines[at]!.text}`);
  return document;
}
