/**
 * Matching a URI against a parsed template without backtracking, in time linear in the URI's
 * length. A template is `head {v1} after1 {v2} after2 ... {vn} aftern`, where every `after` but the
 * last is non-empty (the parser refuses adjacent expressions).
 *
 * The result is the one a backtracking `^head(v1)after1...(vn)aftern$` RegExp gives: each variable
 * takes the longest value that still lets the rest of the template match. Two cases:
 * - Delimited templates (the usual ones: `demo://{owner}/{repo}/{+path}`): the literal after each
 *   variable but the last begins with a character its values cannot hold, so a value ends at the
 *   first such character; one scan, left to right.
 * - Otherwise (`{a}-{b}`, `{+a}/x/{b}`), two passes:
 *   1. right to left, for each variable j and each start s, the greatest end e of a value of j
 *      starting at s such that `after_j {v_j+1} ... aftern` matches from e (`ends[j][s]`, 0: none);
 *   2. left to right, each variable takes `ends[j][s]` at the start its predecessor left.
 *
 * Work, counted in `meter.steps`: at most 3 × (variables + 1) × (URI length + 1) + template length
 * (one classification pass, one pass per variable, one KMP scan per literal between variables).
 * Memory: one Int32Array of URI length + 1 per variable, for the length of one match.
 */

/** How work is counted; tests read it to prove the bound above. */
export interface MatchMeter {
  steps: number;
}

/** One expression of a template and the literal text after it ('' only after the last one). */
interface PlannedVariable {
  readonly reserved: boolean;
  readonly after: string;
  /** KMP failure table of `after`: the longest proper border of each of its prefixes. */
  readonly failure: Int32Array;
}

export interface MatchPlan {
  readonly head: string;
  readonly variables: readonly PlannedVariable[];
  /** The shortest URI that can match: the literals and one character per variable. */
  readonly minLength: number;
  /** Every variable but the last is followed by a character its values cannot hold. */
  readonly delimited: boolean;
}

// Flags of one URI character. A '%' is allowed in a value only as the start of a %XX triplet.
const SIMPLE = 1; // may occur in a {var} value: unreserved, or a triplet's '%'
const RESERVED = 2; // may occur in a {+var} value: the above, or a reserved character
const TRIPLET = 4; // the '%' of a %XX triplet

/** RFC 3986 unreserved and reserved characters: what `{var}` and `{+var}` expansions keep as they are. */
export const UNRESERVED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';
export const RESERVED_CHARACTERS = ":/?#[]@!$&'()*+,;=";

const ASCII_FLAGS = new Uint8Array(128);
for (const ch of UNRESERVED) ASCII_FLAGS[ch.charCodeAt(0)] = SIMPLE | RESERVED;
for (const ch of RESERVED_CHARACTERS) ASCII_FLAGS[ch.charCodeAt(0)] = RESERVED;

const PERCENT = 0x25;

export function isHexDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/** The longest proper border of each prefix of `literal` (Knuth–Morris–Pratt). */
function failureTable(literal: string): Int32Array {
  const failure = new Int32Array(literal.length);
  let k = 0;
  for (let i = 1; i < literal.length; i++) {
    while (k > 0 && literal.charCodeAt(i) !== literal.charCodeAt(k)) k = failure[k - 1] as number;
    if (literal.charCodeAt(i) === literal.charCodeAt(k)) k += 1;
    failure[i] = k;
  }
  return failure;
}

const allowedIn = (variable: PlannedVariable): number => (variable.reserved ? RESERVED : SIMPLE);

/** True when a value of `variable` cannot hold the first character of the literal after it. */
function endsAtLiteral(variable: PlannedVariable): boolean {
  const first = variable.after.charCodeAt(0);
  if (Number.isNaN(first) || first === PERCENT) return false;
  return first >= 128 || ((ASCII_FLAGS[first] as number) & allowedIn(variable)) === 0;
}

export function planMatch(
  head: string,
  expressions: readonly { readonly reserved: boolean; readonly after: string }[],
): MatchPlan {
  let minLength = head.length;
  const variables = expressions.map(({ reserved, after }) => {
    minLength += 1 + after.length;
    return { reserved, after, failure: failureTable(after) };
  });
  const delimited = variables.slice(0, -1).every(endsAtLiteral);
  return { head, variables, minLength, delimited };
}

function classify(uri: string, meter: MatchMeter): Uint8Array {
  const flags = new Uint8Array(uri.length);
  for (let i = 0; i < uri.length; i++) {
    meter.steps += 1;
    const code = uri.charCodeAt(i);
    if (code === PERCENT) {
      if (isHexDigit(uri.charCodeAt(i + 1)) && isHexDigit(uri.charCodeAt(i + 2))) {
        flags[i] = SIMPLE | RESERVED | TRIPLET;
      }
    } else if (code < 128) {
      flags[i] = ASCII_FLAGS[code] as number;
    }
  }
  return flags;
}

/**
 * `ends[s]`: the greatest end of a value starting at s, made of characters `allowed`, not ending
 * inside a %XX triplet it contains, after which `follows` holds; 0 when there is none (an end is
 * never 0, as a value is never empty).
 */
function greatestEnds(
  flags: Uint8Array,
  allowed: number,
  follows: Uint8Array,
  meter: MatchMeter,
): Int32Array {
  const ends = new Int32Array(flags.length + 1);
  // The greatest such end for the run of allowed characters s is in; 0 when there is none yet.
  let best = 0;
  for (let s = flags.length - 1; s >= 0; s--) {
    meter.steps += 1;
    const here = flags[s] as number;
    if ((here & allowed) === 0) {
      best = 0;
      continue;
    }
    const end = s + 1;
    // A value that holds the '%' at s or s - 1 cannot end at s + 1, in the middle of its triplet.
    const before = s > 0 ? (flags[s - 1] as number) : 0;
    const splitsTriplet = (here & TRIPLET) !== 0 || (before & TRIPLET) !== 0;
    if (best === 0 && follows[end] === 1 && !splitsTriplet) best = end;
    // Except when the triplet began before s (the literal before the value ends in '%'): the
    // value is then the triplet's second hex digit alone.
    const continuesTriplet = (before & TRIPLET) !== 0 && follows[end] === 1;
    ends[s] = best !== 0 ? best : continuesTriplet ? end : 0;
  }
  return ends;
}

/** `starts[p]` is 1 when `literal` occurs at p and the next variable has a value right after it. */
function literalThen(uri: string, variable: PlannedVariable, nextEnds: Int32Array, meter: MatchMeter) {
  const { after: literal, failure } = variable;
  const starts = new Uint8Array(uri.length + 1);
  let k = 0; // characters of `literal` matched so far, ending at i - 1
  for (let i = 0; i < uri.length; i++) {
    meter.steps += 1;
    const code = uri.charCodeAt(i);
    while (k > 0 && code !== literal.charCodeAt(k)) {
      meter.steps += 1;
      k = failure[k - 1] as number;
    }
    if (code === literal.charCodeAt(k)) k += 1;
    if (k === literal.length) {
      if (nextEnds[i + 1] !== 0) starts[i + 1 - k] = 1;
      meter.steps += 1;
      k = failure[k - 1] as number;
    }
  }
  return starts;
}

/** The raw (still percent-encoded) value of each variable, or null when `uri` does not match. */
export function matchPlan(plan: MatchPlan, uri: string, meter: MatchMeter): string[] | null {
  const { head, variables } = plan;
  const last = variables[variables.length - 1];
  const tail = last?.after ?? '';
  meter.steps += head.length + tail.length;
  if (last === undefined) return uri === head ? [] : null;
  if (uri.length < plan.minLength || !uri.startsWith(head) || !uri.endsWith(tail)) return null;
  return plan.delimited ? scanDelimited(plan, uri, meter) : matchAmbiguous(plan, uri, meter);
}

/** The end of the token at i that a value `allowed` may hold (a character, or a %XX triplet); -1 when none. */
function tokenEnd(uri: string, i: number, allowed: number): number {
  const code = uri.charCodeAt(i);
  if (code === PERCENT) {
    return isHexDigit(uri.charCodeAt(i + 1)) && isHexDigit(uri.charCodeAt(i + 2)) ? i + 3 : -1;
  }
  return code < 128 && ((ASCII_FLAGS[code] as number) & allowed) !== 0 ? i + 1 : -1;
}

/**
 * One scan: each value but the last runs to the first character it cannot hold, where the literal
 * after it must begin; the last runs to where the template's tail begins, on a token boundary.
 */
function scanDelimited(plan: MatchPlan, uri: string, meter: MatchMeter): string[] | null {
  const { variables } = plan;
  const tailStart = uri.length - (variables[variables.length - 1] as PlannedVariable).after.length;
  const values: string[] = [];
  let start = plan.head.length;
  for (const [j, variable] of variables.entries()) {
    const isLast = j === variables.length - 1;
    const allowed = allowedIn(variable);
    const limit = isLast ? tailStart : uri.length;
    let end = start;
    while (end < limit) {
      const next = tokenEnd(uri, end, allowed);
      if (next === -1) break;
      meter.steps += 1;
      end = next;
    }
    if (end === start || (isLast ? end !== tailStart : !uri.startsWith(variable.after, end))) return null;
    meter.steps += variable.after.length;
    values.push(uri.slice(start, end));
    start = end + variable.after.length;
  }
  return values;
}

function matchAmbiguous(plan: MatchPlan, uri: string, meter: MatchMeter): string[] | null {
  const { variables } = plan;
  const tail = (variables[variables.length - 1] as PlannedVariable).after;
  const flags = classify(uri, meter);
  const ends: Int32Array[] = new Array(variables.length);
  // follows[e] is 1 when the text after the variable being planned matches from e.
  let follows = new Uint8Array(uri.length + 1);
  follows[uri.length - tail.length] = 1;
  for (let j = variables.length - 1; j >= 0; j--) {
    const variable = variables[j] as PlannedVariable;
    ends[j] = greatestEnds(flags, allowedIn(variable), follows, meter);
    if (j > 0) follows = literalThen(uri, variables[j - 1] as PlannedVariable, ends[j] as Int32Array, meter);
  }

  const values: string[] = [];
  let start = plan.head.length;
  for (const [j, variable] of variables.entries()) {
    meter.steps += 1;
    const end = (ends[j] as Int32Array)[start] as number;
    if (end === 0) return null;
    values.push(uri.slice(start, end));
    start = end + variable.after.length;
  }
  return values;
}
