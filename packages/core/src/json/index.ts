export {
  DEFAULT_MAX_INTEGER_DIGITS,
  type DecodeJsonOptions,
  type DecodeJsonResult,
  decodeJson,
} from './decode.js';
export { type EncodeJsonOptions, encodeJson } from './encode.js';
export { JsonInt, type RequestId } from './int.js';
