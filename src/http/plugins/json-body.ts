import fp from 'fastify-plugin';

/** JSON's own whitespace (RFC 8259 §2): a body of only these holds no value at all. */
const NO_VALUE = /^[ \t\n\r]*$/;

/**
 * `Content-Type: application/json` with an empty body is read as `{}` (docs/reference/errors.md), as Laravel
 * reads it: fetch() and axios send exactly that for a POST without data (a logout, enabling two-factor).
 * Anything else goes to Fastify's own parser, which keeps refusing malformed JSON (400) and
 * `__proto__` / `constructor.prototype` keys (the app's onProtoPoisoning / onConstructorPoisoning).
 */
export const jsonBodyPlugin = fp(
  async (app) => {
    const parse = app.getDefaultJsonParser(
      app.initialConfig.onProtoPoisoning ?? 'error',
      app.initialConfig.onConstructorPoisoning ?? 'error',
    );
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = body as string;
      if (NO_VALUE.test(text)) done(null, {});
      else parse(request, text, done);
    });
  },
  { name: 'gatehouse-json-body' },
);
