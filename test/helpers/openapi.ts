import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

/** What `_method` can turn a form-encoded POST into (http/form-methods.ts FormMethod). */
const FORM_METHODS = new Set(['put', 'patch', 'delete']);

/**
 * docs/reference/http-api.md: "the test suite checks real responses against" /openapi.json. Every test app
 * (helpers/app.ts) routes its `inject` through this check: a JSON answer (or a 204) of a documented
 * route must be one of the statuses its operation lists (or an error under `default`), with a body its
 * schema accepts. A route that drifts from the document fails the test that called it.
 */

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

interface CompiledPath {
  readonly template: string;
  readonly pattern: RegExp;
  readonly params: number;
}

export class OpenApiChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly paths: CompiledPath[];

  constructor(private readonly document: Document) {
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: document.components });
    // Literal paths win over templates (/api/tokens/current before /api/tokens/{id}).
    this.paths = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      .sort((a, b) => a.params - b.params);
  }

  /** Throws an AssertionError naming the route, the status and what does not match. */
  check(options: InjectOptions, response: LightMyRequestResponse): void {
    const method = String(options.method ?? 'GET').toLowerCase();
    if (method === 'head' || method === 'options') return;
    const type = String(response.headers['content-type'] ?? '');
    const json = type.startsWith('application/json');
    if (!json && response.statusCode !== 204) return;
    const url = typeof options.url === 'string' ? options.url : String(options.path ?? '/');
    const path = url.split('?')[0]!;
    const template = this.paths.find((p) => p.pattern.test(path))?.template;
    const operation = template === undefined ? undefined : this.operationFor(template, method, options);
    if (operation === undefined) return;
    const label = `${method.toUpperCase()} ${template} → ${response.statusCode}`;
    const status = String(response.statusCode);
    const answer =
      operation.operation.responses[status] ??
      (response.statusCode >= 400 ? operation.operation.responses['default'] : undefined);
    assert.ok(answer, `${label}: this status is not in /openapi.json`);
    const schema = answer.content?.['application/json']?.schema;
    if (!json) {
      assert.equal(schema, undefined, `${label}: /openapi.json promises a JSON body, none came`);
      return;
    }
    assert.ok(schema !== undefined, `${label}: a JSON body came where /openapi.json promises none`);
    const key = `${operation.method} ${template} ${answer === operation.operation.responses[status] ? status : 'default'}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(rebase(schema) as object);
      this.validators.set(key, validate);
    }
    const body: unknown = response.json();
    assert.ok(
      validate(body),
      `${label}: the body does not match /openapi.json: ${this.ajv.errorsText(validate.errors)}\n${response.body.slice(0, 500)}`,
    );
  }

  /** The operation that answered: a form's `_method` names the route a POST reached (http/form-methods.ts). */
  private operationFor(template: string, method: string, options: InjectOptions) {
    const methods = this.document.paths[template]!;
    if (methods[method]) return { method, operation: methods[method] };
    const override = /(?:^|&)_method=([A-Za-z]+)/.exec(
      typeof options.payload === 'string' ? options.payload : '',
    );
    const overridden = override?.[1]?.toLowerCase();
    // Only the methods a form may ask for (http/form-methods.ts): `_method=GET` leaves a POST a POST.
    if (method === 'post' && overridden && FORM_METHODS.has(overridden) && methods[overridden])
      return { method: overridden, operation: methods[overridden] };
    return undefined;
  }
}

/** `#/components/…` references, pointed at the schema registered under the id `openapi`. */
function rebase(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
}

/** Wraps `app.inject` so that every answer is checked; the document is read from the app itself. */
export async function checkResponsesAgainstOpenApi(app: FastifyInstance): Promise<void> {
  const inject = app.inject.bind(app);
  const document = (await inject({ url: '/openapi.json' })).json() as Document;
  const checker = new OpenApiChecker(document);
  const checked = async (options: InjectOptions | string) => {
    const normalised: InjectOptions = typeof options === 'string' ? { url: options } : options;
    const response = await inject(normalised);
    checker.check(normalised, response);
    return response;
  };
  Object.defineProperty(app, 'inject', { value: checked, configurable: true, writable: true });
}
