import { createRequire } from 'node:module';

/**
 * Route schemas compiled once per process. Fastify makes new compilers for every app it builds and
 * compiles every route's request validator (Ajv) and response serializer (fast-json-stringify) again:
 * about 0.8 s of CPU per app. The service builds one app, but a process that builds many (the tests:
 * a harness per suite, two nodes in one process) paid it for each.
 *
 * The compilers are Fastify's own defaults (resolved from Fastify, so they are the versions it would
 * use itself), given the same shared schemas and options; only the reuse is ours. A compiled function
 * depends on nothing else: it is kept per schema text (the JSON of the schema, since Fastify hands each
 * app its own copies of the route schemas), per shared schemas and per options.
 *
 * One difference follows from passing compilers at all: Fastify then treats them as custom and hands a
 * `headers` schema over as written instead of lower-casing its keys. Write header names in lower case
 * in route schemas (no route validates headers today).
 */
type RouteSchema = { schema: unknown; httpPart?: string; httpStatus?: string; contentType?: string };
type Compile = (route: RouteSchema) => unknown;
type Builder = (externalSchemas: unknown, options: unknown) => Compile;

const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
const ajvCompilers = (fromFastify('@fastify/ajv-compiler') as () => Builder)();
const serializerCompilers = (fromFastify('@fastify/fast-json-stringify-compiler') as () => Builder)();

function reused(build: Builder, optionsKey: (options: unknown) => unknown): Builder {
  const compilers = new Map<string, Compile>();
  return (externalSchemas, options) => {
    const key = JSON.stringify([externalSchemas, optionsKey(options)]);
    let compile = compilers.get(key);
    if (!compile) {
      const compileNew = build(externalSchemas, options);
      const compiled = new Map<string, unknown>();
      compile = (route) => {
        const k = JSON.stringify([route.schema, route.httpPart, route.httpStatus, route.contentType]);
        if (!compiled.has(k)) compiled.set(k, compileNew(route));
        return compiled.get(k);
      };
      compilers.set(key, compile);
    }
    return compile;
  };
}

/** Fastify's `schemaController.compilersFactory`. Ajv's plugins are functions: its custom options are the key, as in @fastify/ajv-compiler. */
export const reusedSchemaCompilers = {
  buildValidator: reused(ajvCompilers, (options) => (options as { customOptions?: unknown } | undefined)?.customOptions),
  buildSerializer: reused(serializerCompilers, (options) => options),
};
