import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preHandlerAsyncHookHandler,
  RouteHandlerMethod,
} from 'fastify';
import { MethodNotAllowedError } from './errors.ts';
import { formBody } from './request-context.ts';

/** The methods a form may ask for with `_method`, as in Laravel. */
export type FormMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface FormTarget {
  readonly preHandler: readonly preHandlerAsyncHookHandler[];
  readonly handler: RouteHandlerMethod;
}

/** Per application (keyed by its services object, shared by every encapsulated plugin), per URL. */
const registries = new WeakMap<object, Map<string, Map<FormMethod, FormTarget>>>();

/**
 * A route that HTML forms can reach too (docs/guides/account.md "Forms without JavaScript"): PUT, PATCH and
 * DELETE are registered as themselves, and a POST to the same URL carrying a hidden `_method` field
 * runs the same preHandlers and handler. `_method` is honoured on form-encoded POSTs only: a JSON
 * client says what it means with the real method, and a cross-site `fetch` cannot turn itself into a
 * "simple" form post that deletes something (the CSRF check runs for the POST all the same).
 *
 * A URL that also has a plain POST (two-factor: POST enables, DELETE disables) registers that POST
 * here as well, since Fastify allows one POST handler per URL.
 */
export function formRoute(
  app: FastifyInstance,
  method: FormMethod,
  url: string,
  preHandler: readonly preHandlerAsyncHookHandler[],
  handler: RouteHandlerMethod,
): void {
  if (method !== 'POST') app.route({ method, url, preHandler: [...preHandler], handler });
  let urls = registries.get(app.services);
  if (urls === undefined) {
    urls = new Map();
    registries.set(app.services, urls);
  }
  let targets = urls.get(url);
  if (targets === undefined) {
    targets = new Map();
    urls.set(url, targets);
    app.post(url, postDispatcher(targets));
  }
  if (targets.has(method)) throw new Error(`${method} ${url} is registered twice`);
  targets.set(method, { preHandler, handler });
}

/** The `_method` a form-encoded POST asks for (upper-cased), or POST. */
function requestedMethod(request: FastifyRequest): string {
  const type = request.headers['content-type'];
  if (typeof type !== 'string' || !/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) return 'POST';
  const asked = formBody(request)['_method'];
  return typeof asked === 'string' ? asked.trim().toUpperCase() : 'POST';
}

function postDispatcher(targets: ReadonlyMap<FormMethod, FormTarget>) {
  return async function dispatch(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    const target = targets.get(requestedMethod(request) as FormMethod);
    if (target === undefined) throw new MethodNotAllowedError([...targets.keys()]);
    // The preHandlers the real route runs. They refuse by throwing (requireAuth,
    // requirePasswordConfirmation); one that answers itself returns the reply, and we stop there.
    for (const pre of target.preHandler) {
      const result: unknown = await pre.call(this, request, reply);
      if (result === reply || reply.sent) return reply;
    }
    return target.handler.call(this, request, reply);
  };
}
