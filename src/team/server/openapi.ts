/** The HTTP API as OpenAPI 3.1, served at `/openapi.json`. Kept beside the routes it describes. */

const errorBody = {
  type: 'object',
  properties: { error: { type: 'string' }, limit: { type: 'integer' } },
  required: ['error'],
};
const checksums = {
  type: 'object',
  description: 'key → `sha256:<hex of the UTF-8 bytes>`',
  additionalProperties: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
};
const repoParam = {
  name: 'repo',
  in: 'path',
  required: true,
  description: 'repo name (`name` or `org/name`, percent-encode the slash)',
  schema: { type: 'string' },
};
const errors = (codes: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(codes).map(([code, description]) => [
      code,
      { description, content: { 'application/json': { schema: errorBody } } },
    ]),
  );

export const TEAM_OPENAPI = {
  openapi: '3.1.0',
  info: {
    title: 'engram team memory',
    version: '1',
    description:
      'Shared memory entries per repo. Pull: server wins per key. Push: upsert of the keys sent, guarded by the repo version (ETag / If-Match). Deletion is explicit only.',
  },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
  },
  security: [{ bearer: [] }],
  paths: {
    '/healthz': {
      get: {
        security: [],
        summary: 'liveness',
        responses: { '200': { description: '`{ok: true, storage}`' } },
      },
    },
    '/v1/repos/{repo}/memories': {
      parameters: [repoParam],
      get: {
        summary: 'all entries with checksums, or only the checksums with view=hashes',
        parameters: [{ name: 'view', in: 'query', required: false, schema: { enum: ['hashes'] } }],
        responses: {
          '200': {
            description: 'the ETag header is the repo version',
            headers: { ETag: { schema: { type: 'string' } } },
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    repo: { type: 'string' },
                    version: { type: 'integer' },
                    entries: { type: 'object', additionalProperties: { type: 'string' } },
                    checksums,
                  },
                  required: ['repo', 'version', 'checksums'],
                },
              },
            },
          },
          ...errors({
            '401': 'no or unknown token',
            '403': 'token for another repo',
            '404': 'unknown repo',
          }),
        },
      },
      put: {
        summary: 'upsert the keys sent; keys not sent are kept',
        parameters: [
          {
            name: 'If-Match',
            in: 'header',
            required: false,
            description: 'the ETag last seen; a stale one gets 412',
            schema: { type: 'string' },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  entries: { type: 'object', additionalProperties: { type: 'string' } },
                },
                required: ['entries'],
              },
            },
          },
        },
        responses: {
          '200': { description: '`{version, keys}`; the ETag header is the new version' },
          ...errors({
            '400': 'malformed body or an invalid key (relative `.md` paths only)',
            '401': 'no or unknown token',
            '403': 'token for another repo, or read-only',
            '404': 'unknown repo',
            '412': 'stale If-Match; the body and ETag carry the current version',
            '413': 'body, entry or entry count over the limit; the body names `limit`',
          }),
        },
      },
    },
    '/v1/repos/{repo}/memories/{key}': {
      parameters: [
        repoParam,
        { name: 'key', in: 'path', required: true, schema: { type: 'string' } },
      ],
      delete: {
        summary: 'remove one entry (the only way anything is deleted)',
        responses: {
          '200': { description: '`{version, deleted}`' },
          ...errors({
            '401': 'no or unknown token',
            '403': 'token for another repo, or read-only',
            '404': 'no such key',
            '412': 'stale If-Match',
          }),
        },
      },
    },
  },
} as const;
