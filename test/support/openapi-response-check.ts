import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;

/** A response as the API helpers return it. */
export interface CheckedResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

const DOCUMENT = 'openapi.json';
const escape = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Checks responses against an OpenAPI document as a strict validator does:
 * Ajv's 2020-12 dialect (OpenAPI 3.1's), formats checked, every
 * `additionalProperties: false` enforced. A response must be listed for its
 * status (or its `4XX` range), carry every required header with a valid
 * value, have a declared content type and a body valid for its schema, or no
 * body when none is declared.
 */
export function openapiResponseChecker(document: Json) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  // Ajv checks `int32`/`int64` on numbers; a JSON.parse'd id beyond 2^53 is still an integer there.
  addFormats.default(ajv);
  // The document is added whole, so that its `#/components/…` references resolve; its top-level members are not schema keywords.
  ajv.addVocabulary(Object.keys(document));
  ajv.addSchema(document, DOCUMENT);
  const at = (pointer: string): unknown =>
    pointer
      .split('/')
      .slice(1)
      .reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
  /** The object at `pointer` and its pointer, following one `$ref`. */
  const resolve = (pointer: string): [Json, string] => {
    const node = at(pointer) as Json;
    return typeof node.$ref === 'string' ? [at(node.$ref.slice(1)) as Json, node.$ref.slice(1)] : [node, pointer];
  };
  const invalid = (pointer: string, value: unknown): string | undefined => {
    const validate = ajv.getSchema(`${DOCUMENT}#${pointer}`)!;
    return validate(value) ? undefined : ajv.errorsText(validate.errors);
  };

  /** What is wrong with `response` to `method` on the path template `route` (empty when nothing). `HEAD` is checked as GET without a body. */
  return function problems(method: string, route: string, response: CheckedResponse): string[] {
    const operation = `/paths/${escape(route)}/${method === 'HEAD' ? 'get' : method.toLowerCase()}`;
    const responses = (at(operation) as { responses?: Json } | undefined)?.responses;
    if (responses === undefined) return [`${method} ${route} is not in the document`];
    const code = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find((key) => key in responses);
    if (code === undefined) return [`${method} ${route}: status ${response.status} is not documented`];
    const [declared, pointer] = resolve(`${operation}/responses/${code}`);
    const found: string[] = [];
    for (const name of Object.keys((declared.headers ?? {}) as Json)) {
      const [header, headerPointer] = resolve(`${pointer}/headers/${escape(name)}`);
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required === true) found.push(`header ${name} is missing`);
        continue;
      }
      const error = invalid(`${headerPointer}/schema`, value);
      if (error) found.push(`header ${name}: ${error}`);
    }
    const content = declared.content as Json | undefined;
    if (method === 'HEAD') return found;
    if (content === undefined) {
      if (response.text !== '') found.push('a body where none is documented');
      return found;
    }
    const essence = (type: string) => type.split(';', 1)[0]!.trim().toLowerCase();
    const contentType = response.headers.get('content-type') ?? '';
    const mediaType = Object.keys(content).find((type) => essence(type) === essence(contentType));
    if (mediaType === undefined) return [...found, `content-type ${contentType} is not documented`];
    const body = mediaType === 'application/json' ? JSON.parse(response.text) : response.text;
    const error = invalid(`${pointer}/content/${escape(mediaType)}/schema`, body);
    if (error) found.push(`body: ${error}`);
    return found;
  };
}
