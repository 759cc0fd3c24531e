import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import AjvModule from 'ajv';
import type { ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';

/**
 * OpenApiDescription is GitHub's published REST description for
 * api.github.com (from @octokit/openapi), indexed for request matching and
 * validation. Loading parses ~13 MB of JSON (about half a second), so it
 * happens once per process, lazily.
 */
export interface OpenApiDescription {
  file: string;
  version: string;
  /** match finds the operation for a method and a concrete path, most literal template first. */
  match(method: string, path: string): OperationMatch | null;
  /** pathExists tells whether any template matches the path, whatever the method. */
  pathExists(path: string): boolean;
  validateRequest(match: OperationMatch, query: URLSearchParams, body: unknown, hasBody: boolean): string[];
  validateResponse(match: OperationMatch, status: number, body: unknown): string[];
}

/** OperationMatch is one matched operation with its decoded path parameters. */
export interface OperationMatch {
  method: string;
  template: string;
  operationId: string;
  pathParams: Record<string, string>;
  operation: Operation;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: unknown;
}

interface Operation {
  operationId: string;
  parameters?: ({ $ref: string } | Parameter)[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> } | { $ref: string };
  responses: Record<string, unknown>;
}

interface Route {
  method: string;
  template: string;
  regex: RegExp;
  names: string[];
  literals: number;
  operation: Operation;
}

const require = createRequire(import.meta.url);
let loaded: OpenApiDescription | null = null;

/** OPENAPI_FILE is where @octokit/openapi keeps the api.github.com description. */
export const OPENAPI_FILE = require.resolve('@octokit/openapi/generated/api.github.com.json');

/** loadOpenApiDescription returns the process-wide description, loading it on first use. */
export function loadOpenApiDescription(): OpenApiDescription {
  loaded ??= build(allowNullInNullableEnums(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'))));
  return loaded;
}

function build(spec: { info: { version: string }; paths: Record<string, Record<string, unknown>>; components: Record<string, Record<string, unknown>> }): OpenApiDescription {
  const Ajv = AjvModule.default;
  // OpenAPI 3.0 schemas are not JSON Schema: unknown keywords (example,
  // x-github...) must be ignored, and `nullable` is understood by Ajv itself.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false, discriminator: false });
  formatsModule.default(ajv);
  ajv.addSchema({ $id: 'github', components: spec.components });

  const routes: Route[] = [];
  for (const [template, item] of Object.entries(spec.paths)) {
    const shared = (item.parameters as Operation['parameters']) ?? [];
    const names: string[] = [];
    const pattern = template.split('/').map((segment) => segment.replace(/\{([^}]+)\}|[^{]+/g, (part, name?: string) => {
      if (name !== undefined) {
        names.push(name);
        return '([^/]+)';
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })).join('/');
    const literals = template.split('/').filter((s) => s !== '' && !s.includes('{')).length;
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters' || typeof operation !== 'object' || operation === null || !('operationId' in operation)) continue;
      const op = operation as Operation;
      routes.push({ method: method.toUpperCase(), template, regex: new RegExp(`^${pattern}$`), names, literals, operation: { ...op, parameters: [...shared, ...(op.parameters ?? [])] } });
    }
  }
  routes.sort((a, b) => b.literals - a.literals);

  const validators = new Map<string, ValidateFunction>();
  function validator(key: string, schema: unknown): ValidateFunction {
    let v = validators.get(key);
    if (v === undefined) {
      v = ajv.compile(rebase(schema) as object);
      validators.set(key, v);
    }
    return v;
  }
  function resolve<T>(value: T | { $ref: string }): T {
    let current: unknown = value;
    for (let depth = 0; depth < 10 && current !== null && typeof current === 'object' && '$ref' in current; depth++) {
      const ref = (current as { $ref: string }).$ref;
      current = ref.replace(/^#\//, '').split('/').reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], spec);
    }
    return current as T;
  }
  function parametersOf(operation: Operation): Parameter[] {
    return (operation.parameters ?? []).map((p) => resolve<Parameter>(p));
  }
  function checkValue(key: string, where: string, param: Parameter, raw: string): string[] {
    const schema = param.schema ?? {};
    const v = validator(key, schema);
    // Try the string first (workflow_id is integer OR string), then the coerced value.
    if (v(raw)) return [];
    for (const coerced of coercions(raw)) if (v(coerced)) return [];
    v(coercions(raw)[0] ?? raw);
    return (v.errors ?? []).map((e) => `${where} parameter ${param.name}${e.instancePath} ${e.message}${e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as unknown[]).join(', ')})` : ''}; got ${JSON.stringify(raw)}`);
  }

  return {
    file: OPENAPI_FILE,
    version: spec.info.version,
    match(method, path) {
      for (const route of routes) {
        if (route.method !== method) continue;
        const m = route.regex.exec(path);
        if (!m) continue;
        const pathParams: Record<string, string> = {};
        route.names.forEach((name, i) => {
          pathParams[name] = decodeURIComponent(m[i + 1]);
        });
        return { method, template: route.template, operationId: route.operation.operationId, pathParams, operation: route.operation };
      }
      return null;
    },
    pathExists(path) {
      return routes.some((route) => route.regex.test(path));
    },
    validateRequest(match, query, body, hasBody) {
      const errors: string[] = [];
      const params = parametersOf(match.operation);
      for (const param of params.filter((p) => p.in === 'path')) {
        errors.push(...checkValue(`${match.operationId} path ${param.name}`, 'path', param, match.pathParams[param.name] ?? ''));
      }
      const queryParams = params.filter((p) => p.in === 'query');
      for (const param of queryParams) {
        const values = query.getAll(param.name);
        if (values.length === 0) {
          if (param.required) errors.push(`query parameter ${param.name} is required`);
          continue;
        }
        for (const value of values) errors.push(...checkValue(`${match.operationId} query ${param.name}`, 'query', param, value));
      }
      // GitHub ignores unknown query parameters; a client sending one has a bug.
      for (const name of new Set(query.keys())) {
        if (!queryParams.some((p) => p.name === name)) errors.push(`query parameter ${name} is not defined for ${match.operationId}`);
      }
      const requestBody = match.operation.requestBody === undefined ? undefined : resolve(match.operation.requestBody);
      const schema = requestBody?.content?.['application/json']?.schema;
      if (requestBody === undefined || schema === undefined) {
        if (hasBody) errors.push(`${match.operationId} takes no request body, but one was sent`);
      } else if (!hasBody) {
        if (requestBody.required) errors.push(`${match.operationId} requires a JSON request body`);
      } else {
        const v = validator(`${match.operationId} body`, schema);
        if (!v(body)) errors.push(...(v.errors ?? []).map((e) => `body${e.instancePath || ''} ${e.message}${e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as unknown[]).join(', ')})` : ''}`));
      }
      return errors;
    },
    validateResponse(match, status, body) {
      const response = resolve<{ content?: Record<string, { schema?: unknown }> } | undefined>(match.operation.responses[String(status)] as never);
      if (response === undefined) {
        // The description leaves out most error statuses (a 404 on PATCH of a
        // missing comment, say); those must still have GitHub's error shape.
        if (status < 400) return [`status ${status} is not a documented response of ${match.operationId}`];
        const v = validator('basic-error', { $ref: '#/components/schemas/basic-error' });
        return v(body) ? [] : (v.errors ?? []).map((e) => `error response${e.instancePath || ''} ${e.message}`);
      }
      const schema = response.content?.['application/json']?.schema;
      if (schema === undefined) return body === undefined ? [] : [`status ${status} of ${match.operationId} has no JSON body, but the stand-in sent one`];
      const v = validator(`${match.operationId} response ${status}`, schema);
      return v(body) ? [] : (v.errors ?? []).map((e) => `response${e.instancePath || ''} ${e.message}`);
    },
  };
}

/**
 * allowNullInNullableEnums adds null to the enum of every `nullable: true`
 * schema. GitHub sends `"conclusion": null` on a running check run, whose
 * schema is a nullable enum without null; OpenAPI 3.0.3 says such an enum
 * excludes null, GitHub means it to include it. A `nullable` schema without
 * a `type` gets null as one more anyOf/oneOf alternative, since Ajv cannot
 * compile `nullable` alone.
 */
function allowNullInNullableEnums<T>(node: T): T {
  if (Array.isArray(node)) {
    for (const item of node) allowNullInNullableEnums(item);
  } else if (node !== null && typeof node === 'object') {
    const schema = node as Record<string, unknown>;
    if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
    // Ajv refuses `nullable` without `type` (issue-field-value's anyOf value); say it as a null alternative instead.
    if (schema.nullable === true && schema.type === undefined) {
      delete schema.nullable;
      for (const key of ['anyOf', 'oneOf'] as const) if (Array.isArray(schema[key])) schema[key] = [...(schema[key] as unknown[]), { type: 'null' }];
    }
    for (const value of Object.values(schema)) allowNullInNullableEnums(value);
  }
  return node;
}

function coercions(raw: string): unknown[] {
  const out: unknown[] = [];
  if (/^-?\d+(\.\d+)?$/.test(raw)) out.push(Number(raw));
  if (raw === 'true' || raw === 'false') out.push(raw === 'true');
  return out;
}

/** rebase points local `#/components/...` refs at the registered `github` schema. */
function rebase(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', '"$ref":"github#/'));
}
