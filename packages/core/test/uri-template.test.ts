import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  compareTemplatePrecedence,
  countMatchSteps,
  parseUriTemplate,
  UriTemplateError,
} from '../src/router/uri-template.js';

function refusal(template: string): UriTemplateError {
  try {
    parseUriTemplate(template);
  } catch (error) {
    expect(error).toBeInstanceOf(UriTemplateError);
    return error as UriTemplateError;
  }
  throw new Error(`expected "${template}" to be refused`);
}

describe('parseUriTemplate: accepted templates', () => {
  it('lists variables in order of appearance and counts literal characters', () => {
    const t = parseUriTemplate('demo://{+root}/users/{id}/é😀');
    expect(t.template).toBe('demo://{+root}/users/{id}/é😀');
    expect(t.variables).toEqual(['root', 'id']);
    // Code points, not UTF-16 units: the emoji counts once.
    expect(t.literalLength).toBe(7 + 7 + 3);
  });

  it('accepts a template without variables and matches it exactly', () => {
    const t = parseUriTemplate('demo://static/readme');
    expect(t.variables).toEqual([]);
    expect(t.literalLength).toBe(20);
    expect(t.match('demo://static/readme')).toEqual({});
    expect(t.match('demo://static/readme2')).toBeNull();
    expect(t.expand({})).toBe('demo://static/readme');
  });

  it('accepts RFC 6570 varnames with dots, digits, underscores and pct-encoded characters', () => {
    const t = parseUriTemplate('x://{a.b}/{_1}/{%41z}');
    expect(t.variables).toEqual(['a.b', '_1', '%41z']);
    expect(t.match('x://1/2/3')).toEqual({ 'a.b': '1', _1: '2', '%41z': '3' });
  });
});

describe('expand', () => {
  it('{var} percent-encodes everything outside unreserved, as UTF-8', () => {
    const t = parseUriTemplate('demo://items/{name}');
    expect(t.expand({ name: 'a b' })).toBe('demo://items/a%20b');
    expect(t.expand({ name: 'a/b' })).toBe('demo://items/a%2Fb');
    expect(t.expand({ name: 'é' })).toBe('demo://items/%C3%A9');
    expect(t.expand({ name: '😀' })).toBe('demo://items/%F0%9F%98%80');
    expect(t.expand({ name: "!'()*%" })).toBe('demo://items/%21%27%28%29%2A%25');
    expect(t.expand({ name: 'Az09-._~' })).toBe('demo://items/Az09-._~');
  });

  it('{var} encodes a lone surrogate as U+FFFD instead of throwing', () => {
    expect(parseUriTemplate('x:{v}').expand({ v: 'a\uD800b' })).toBe('x:a%EF%BF%BDb');
  });

  it('{+var} keeps reserved characters and existing %XX triplets', () => {
    const t = parseUriTemplate('file:///{+path}');
    expect(t.expand({ path: 'a/b c/%20/%zz/%' })).toBe('file:///a/b%20c/%20/%25zz/%25');
    expect(t.expand({ path: ":/?#[]@!$&'()*+,;=" })).toBe("file:///:/?#[]@!$&'()*+,;=");
    expect(t.expand({ path: 'é😀' })).toBe('file:///%C3%A9%F0%9F%98%80');
  });

  it('missing variables expand to the empty string and literals are copied as is', () => {
    const t = parseUriTemplate('x y://{a}/{+b}/{constructor}');
    expect(t.expand({ a: '1' })).toBe('x y://1//');
    expect(t.expand({})).toBe('x y:////');
  });
});

describe('match', () => {
  it('{var} matches one segment and decodes it', () => {
    const t = parseUriTemplate('demo://items/{name}');
    expect(t.match('demo://items/a%20b')).toEqual({ name: 'a b' });
    expect(t.match('demo://items/%C3%A9%F0%9F%98%80')).toEqual({ name: 'é😀' });
    expect(t.match('demo://items/a%2Fb')).toEqual({ name: 'a/b' });
    expect(t.match('demo://items/a/b')).toBeNull();
    expect(t.match('demo://items/a?b')).toBeNull();
    expect(t.match('demo://items/a#b')).toBeNull();
    expect(t.match('demo://items/a b')).toBeNull();
    expect(t.match('demo://items/')).toBeNull();
  });

  it('{+var} spans slashes', () => {
    const t = parseUriTemplate('file:///{+path}');
    expect(t.match('file:///a/b/c')).toEqual({ path: 'a/b/c' });
    expect(t.match('file:///a/b%20c?q=1#f')).toEqual({ path: 'a/b c?q=1#f' });
    expect(t.match('file:///')).toBeNull();
  });

  it('{+var} is greedy', () => {
    const t = parseUriTemplate('demo://{+a}/x/{b}');
    expect(t.match('demo://p/x/q/x/r')).toEqual({ a: 'p/x/q', b: 'r' });
    expect(t.match('demo://p/x/q')).toEqual({ a: 'p', b: 'q' });
    // Where the next variable could also absorb the separator, greedy and lazy differ.
    expect(parseUriTemplate('demo://{+a}/x/{+b}').match('demo://p/x/q/x/r')).toEqual({ a: 'p/x/q', b: 'r' });
    expect(parseUriTemplate('demo://{+a}-{b}').match('demo://p-q-r')).toEqual({ a: 'p-q', b: 'r' });
  });

  it('is anchored at both ends', () => {
    const t = parseUriTemplate('demo://items/{id}');
    expect(t.match('demo://items/1')).toEqual({ id: '1' });
    expect(t.match('xdemo://items/1')).toBeNull();
    expect(t.match('demo://items/1/extra')).toBeNull();
    expect(t.match('demo://items/1\n')).toBeNull();
    expect(t.match('prefix demo://items/1')).toBeNull();
  });

  it('escapes regular-expression characters in literal text', () => {
    const t = parseUriTemplate('a.b+(c)*[d]$^|?{x}');
    expect(t.match('a.b+(c)*[d]$^|?1')).toEqual({ x: '1' });
    expect(t.match('aXb+(c)*[d]$^|?1')).toBeNull();
    expect(t.match('abb(c)*[d]$^|?1')).toBeNull();
  });

  it('decodes every %XX of a {var}, reserved characters included (RFC 6570): the handler must check the value', () => {
    const t = parseUriTemplate('demo://items/{id}');
    expect(t.match('demo://items/%2e%2e%2f%2e%2e%2fetc%2fpasswd')).toEqual({ id: '../../etc/passwd' });
    expect(t.match('demo://items/%3F%23%00')).toEqual({ id: '?#\u0000' });
    // A literal '/' still never matches inside {var}: only its encoded form reaches the handler.
    expect(t.match('demo://items/../../etc/passwd')).toBeNull();
    expect(parseUriTemplate('file:///{+path}').match('file:///a/%2e%2e/%2e%2e/etc')).toEqual({
      path: 'a/../../etc',
    });
  });

  it('refuses invalid percent sequences without throwing', () => {
    const simple = parseUriTemplate('demo://items/{name}');
    const reserved = parseUriTemplate('file:///{+path}');
    for (const uri of ['demo://items/%E9', 'demo://items/%zz', 'demo://items/%', 'demo://items/a%4']) {
      expect(simple.match(uri)).toBeNull();
    }
    for (const uri of ['file:///%E9', 'file:///a/%zz', 'file:///%', 'file:///%C3%28']) {
      expect(reserved.match(uri)).toBeNull();
    }
  });

  it('keeps a variable named __proto__ as an own property', () => {
    const result = parseUriTemplate('x:{__proto__}').match('x:1');
    expect(result).not.toBeNull();
    expect(Object.keys(result ?? {})).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(result, '__proto__')?.value).toBe('1');
  });

  it('round-trips any Unicode text through expand then match for {var} templates', () => {
    const unreserved = 'ABCXYZabcxyz0189-._~';
    const reservedChars = ":/?#[]@!$&'()*+,;=";
    const literalChars = fc.constantFrom(...(unreserved + reservedChars));
    // A separator holds at least one character a {var} expansion can never contain.
    const separator = fc
      .tuple(
        fc.string({ unit: fc.constantFrom(...unreserved) }),
        fc.constantFrom(...reservedChars),
        fc.string({ unit: fc.constantFrom(...unreserved) }),
      )
      .map((p) => p.join(''));
    const scenario = fc.record({
      prefix: fc.string({ unit: literalChars }),
      suffix: fc.string({ unit: literalChars }),
      separators: fc.array(separator, { maxLength: 4 }),
      values: fc.array(fc.string({ unit: 'binary', minLength: 1 }), { minLength: 5, maxLength: 5 }),
    });
    fc.assert(
      fc.property(scenario, ({ prefix, suffix, separators, values }) => {
        let template = `${prefix}{v0}`;
        separators.forEach((sep, i) => {
          template += `${sep}{v${i + 1}}`;
        });
        template += suffix;
        const t = parseUriTemplate(template);
        const input = Object.fromEntries(t.variables.map((name, i) => [name, values[i] as string]));
        expect(t.match(t.expand(input))).toEqual(input);
      }),
      { numRuns: 500 },
    );
  });
});

/**
 * The backtracking RegExp this module matched with before it was made linear: the oracle for what a
 * match returns, run on short URIs only (its failing matches take time polynomial in the URI length,
 * degree the number of variables).
 */
function referenceMatch(template: string, uri: string): Record<string, string> | null {
  const pct = '%[0-9A-Fa-f]{2}';
  const simple = `((?:[A-Za-z0-9\\-._~]|${pct})+)`;
  const reserved = `((?:[A-Za-z0-9\\-._~:/?#\\[\\]@!$&'()*+,;=]|${pct})+)`;
  const names: string[] = [];
  let source = '^';
  for (const piece of template.split(/(\{[^}]*\})/)) {
    if (piece.startsWith('{')) {
      names.push(piece.replace(/^\{\+?|\}$/g, ''));
      source += piece.startsWith('{+') ? reserved : simple;
    } else {
      source += piece.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
    }
  }
  const found = new RegExp(`${source}$`).exec(uri);
  if (found === null) return null;
  try {
    return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1] as string)]));
  } catch {
    return null;
  }
}

/** The bound `match` documents: linear in the URI's length for a given template. */
function stepBound(template: string, uri: string): number {
  const expressions = parseUriTemplate(template).variables.length;
  return 3 * (expressions + 1) * (uri.length + 1) + template.length;
}

/** Templates of 0 to 4 expressions, {var} or {+var}, over literals that values can also contain. */
const templates = fc
  .record({
    head: fc.string({ unit: fc.constantFrom('a', 'x:', '/', '-', '%', '4'), maxLength: 3 }),
    expressions: fc.array(
      fc.record({
        reserved: fc.boolean(),
        after: fc.string({
          unit: fc.constantFrom('a', '-', '/', '.', '%', '4', '1', '%41', '?', ' ', 'é'),
          minLength: 1,
          maxLength: 3,
        }),
      }),
      { maxLength: 4 },
    ),
    open: fc.boolean(),
  })
  .map(({ head, expressions, open }) => {
    let template = head;
    expressions.forEach(({ reserved, after }, i) => {
      const last = i === expressions.length - 1;
      template += `{${reserved ? '+' : ''}v${i}}${last && open ? '' : after}`;
    });
    return template;
  });

/**
 * URIs built from the template's own literal text and characters values may or may not hold: at
 * random, or shaped like the template (each expression replaced by a few of those units, so the
 * literals also occur inside values and most URIs match, often in more than one way).
 */
function uriFor(template: string, maxUnits: number) {
  const literals = template.split(/\{[^}]*\}/);
  const unit = fc.constantFrom(
    ...literals.filter((piece) => piece !== ''),
    ...['a', '-', '/', '.', '%', '4', '1', '%41', '%2F', '%C3%A9', '%E9', '!', ' ', 'é'],
  );
  const random = fc.array(unit, { maxLength: maxUnits }).map((units) => units.join(''));
  const shaped = fc
    .array(fc.array(unit, { minLength: 1, maxLength: Math.max(1, maxUnits >> 2) }), {
      minLength: literals.length - 1,
      maxLength: literals.length - 1,
    })
    .map((values) => literals.map((literal, i) => literal + (values[i]?.join('') ?? '')).join(''));
  return fc.oneof(random, shaped);
}

describe('match cost', () => {
  it.each([
    ['three {var} split by "-"', 'calendar://{year}-{month}-{day}', `calendar://${'-'.repeat(4000)}!`],
    ['four {var} split by "-"', 'calendar://{a}-{b}-{c}-{d}', `calendar://${'-'.repeat(497)}!`],
    ['five {var} split by ".", "_", "~"', 'x://{a}.{b}_{c}~{d}.{e}', `x://${'._~'.repeat(1330)}!`],
    ['three {+var} split by "/"', 'x://{+a}/{+b}/{+c}', `x://${'/'.repeat(4000)} `],
    ['{+var} then {var} split by "-"', 'x://{+a}-{b}-{c}', `x://${'-/'.repeat(2000)}!`],
    ['a literal that repeats inside itself', 'x://{a}aab{b}aab{c}', `x://${'a'.repeat(4000)}!`],
    ['a literal of %XX', 'x://{a}%41{b}%41{c}', `x://${'%41'.repeat(1330)}!`],
    ['delimited {var}/{var}/{+var}', 'x://{a}/{b}/{+c}', `x://${'a/'.repeat(2000)} `],
  ])('%s: a hostile URI is refused in steps linear in its length', (_what, template, uri) => {
    const { variables, steps } = countMatchSteps(template, uri);
    expect(variables).toBeNull();
    expect(steps).toBeLessThanOrEqual(stepBound(template, uri));
  });

  it('does work within the bound for any template and URI', () => {
    fc.assert(
      fc.property(
        templates.chain((template) => fc.tuple(fc.constant(template), uriFor(template, 1500))),
        ([template, uri]) => {
          expect(countMatchSteps(template, uri).steps).toBeLessThanOrEqual(stepBound(template, uri));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('returns what the backtracking RegExp returned: each variable takes the longest value that lets the rest match', () => {
    fc.assert(
      fc.property(
        templates.chain((template) => fc.tuple(fc.constant(template), uriFor(template, 10))),
        ([template, uri]) => {
          expect(parseUriTemplate(template).match(uri)).toEqual(referenceMatch(template, uri));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('runs no regular expression', () => {
    const t = parseUriTemplate('calendar://{year}-{month}-{day}');
    const exec = vi.spyOn(RegExp.prototype, 'exec');
    const results = [t.match('calendar://2026-07-28'), t.match('calendar://----!')];
    const calls = exec.mock.calls.map(([input]) => input);
    vi.restoreAllMocks();
    expect(calls).toEqual([]);
    expect(results).toEqual([{ year: '2026', month: '07', day: '28' }, null]);
  });
});

describe('parseUriTemplate: refused templates', () => {
  it('reports the template, reason, message, name and code', () => {
    const error = refusal('demo://{#frag}');
    expect(error.template).toBe('demo://{#frag}');
    expect(error.reason).toBe(
      "expression '{#frag}' uses operator '#' (fragment expansion); only '{var}' and '{+var}' are supported",
    );
    expect(error.message).toBe(`Unsupported URI template "demo://{#frag}": ${error.reason}`);
    expect(error.name).toBe('UriTemplateError');
    expect(error.code).toBe('SNODO_ERR_UNSUPPORTED_TEMPLATE');
    expect(error).toBeInstanceOf(Error);
  });

  it('is recognised by its brand, as when another copy of core threw it', () => {
    const foreign = Object.create(Error.prototype, {
      [Symbol.for('snodo.UriTemplateError')]: { value: true },
    });
    expect(foreign instanceof UriTemplateError).toBe(true);
    expect(UriTemplateError.is(foreign)).toBe(true);
    expect(UriTemplateError.is(refusal('{'))).toBe(true);
    expect(new Error('x') instanceof UriTemplateError).toBe(false);
    expect(UriTemplateError.is(new Error('x'))).toBe(false);
    expect(UriTemplateError.is(null)).toBe(false);
  });

  it.each([
    ['{#x}', '#', 'fragment expansion'],
    ['{.x}', '.', 'label expansion'],
    ['{/x}', '/', 'path segment expansion'],
    ['{;x}', ';', 'path-style parameter expansion'],
    ['{?x}', '?', 'form-style query expansion'],
    ['{&x}', '&', 'form-style query continuation'],
  ])('refuses the operator in %s', (expr, op, what) => {
    const { reason } = refusal(`demo://a/${expr}`);
    expect(reason).toContain(`'${expr}'`);
    expect(reason).toContain(`operator '${op}' (${what})`);
  });

  it.each(['=', ',', '!', '@', '|'])('refuses the reserved operator %s', (op) => {
    const { reason } = refusal(`demo://a/{${op}x}`);
    expect(reason).toContain(`'{${op}x}'`);
    expect(reason).toContain(`operator '${op}', which RFC 6570 reserves for future extensions`);
  });

  it('refuses several variables in one expression', () => {
    expect(refusal('demo://{a,b}').reason).toContain("'{a,b}' lists several variables");
    expect(refusal('demo://{+a,b}').reason).toContain("'{+a,b}' lists several variables");
  });

  it('refuses the prefix modifier', () => {
    expect(refusal('demo://{x:3}').reason).toContain("'{x:3}' uses the prefix modifier ':3'");
  });

  it('refuses the explode modifier', () => {
    expect(refusal('demo://{+x*}').reason).toContain("'{+x*}' uses the explode modifier '*'");
  });

  it.each(['a-b', 'a..b', 'a.', 'é', 'a b', '%4', '%zz', 'x*y'])(
    'refuses the invalid variable name %s',
    (name) => {
      const { reason } = refusal(`demo://{${name}}`);
      expect(reason).toContain(`'{${name}}' has an invalid variable name '${name}'`);
    },
  );

  it('refuses an expression with an operator but no name', () => {
    expect(refusal('demo://{+}').reason).toContain("'{+}' has no variable name");
  });

  it('refuses unbalanced braces', () => {
    expect(refusal('demo://{x').reason).toBe("unbalanced braces: '{' at offset 7 is never closed");
    expect(refusal('demo://x}').reason).toBe("unbalanced braces: '}' at offset 8 has no matching '{'");
    expect(refusal('demo://{x}}').reason).toBe("unbalanced braces: '}' at offset 10 has no matching '{'");
    expect(refusal('demo://{a{b}}').reason).toBe(
      "unbalanced braces: '{' at offset 9 opens inside the expression started at offset 7",
    );
  });

  it('refuses an empty expression', () => {
    expect(refusal('demo://{}').reason).toContain("empty expression '{}'");
  });

  it('refuses two expressions with no literal text between them', () => {
    expect(refusal('demo://{a}{b}').reason).toBe(
      "expressions '{a}' and '{b}' have no literal text between them, so a match would be ambiguous",
    );
    expect(refusal('{+a}{b}').reason).toContain("'{+a}' and '{b}' have no literal text between them");
  });

  it('refuses a variable name used twice', () => {
    expect(refusal('demo://{x}/{x}').reason).toBe("variable 'x' is used twice ('{x}' and '{x}')");
    expect(refusal('demo://{x}/{+x}').reason).toBe("variable 'x' is used twice ('{x}' and '{+x}')");
  });
});

describe('compareTemplatePrecedence', () => {
  const winner = (uri: string, ...templates: string[]): string | undefined => {
    const parsed = templates.map(parseUriTemplate);
    const forward = [...parsed].sort(compareTemplatePrecedence).find((t) => t.match(uri) !== null);
    const backward = [...parsed]
      .reverse()
      .sort(compareTemplatePrecedence)
      .find((t) => t.match(uri) !== null);
    expect(backward?.template).toBe(forward?.template);
    return forward?.template;
  };

  it('prefers more literal characters', () => {
    expect(winner('demo://users/me', 'demo://users/{id}', 'demo://{+path}', 'demo://users/me')).toBe(
      'demo://users/me',
    );
    expect(winner('demo://users/42', 'demo://users/{id}', 'demo://{+path}')).toBe('demo://users/{id}');
    const a = parseUriTemplate('demo://users/{id}');
    const b = parseUriTemplate('demo://{+path}');
    expect(compareTemplatePrecedence(a, b)).toBeLessThan(0);
    expect(compareTemplatePrecedence(b, a)).toBeGreaterThan(0);
  });

  it('then prefers fewer {+var} expressions', () => {
    // Same literal length (8), same variable count; only the operator differs.
    expect(winner('demo://a/b', 'demo://{+x}/{y}', 'demo://{x}/{y}')).toBe('demo://{x}/{y}');
    expect(winner('demo://a/b', 'demo://{+x}/{+y}', 'demo://{+x}/{y}')).toBe('demo://{+x}/{y}');
  });

  it('then prefers fewer variables', () => {
    // Both have 8 literal characters and no {+var}: 'demo://' + '-' versus 'demo://' + 'z'.
    const one = parseUriTemplate('demo://z{x}');
    const two = parseUriTemplate('demo://{x}-{y}');
    expect(one.literalLength).toBe(two.literalLength);
    expect(compareTemplatePrecedence(one, two)).toBeLessThan(0);
    expect(compareTemplatePrecedence(two, one)).toBeGreaterThan(0);
    expect(winner('demo://za-b', 'demo://{x}-{y}', 'demo://z{x}')).toBe('demo://z{x}');
    // '~' sorts after '{', so here only the variable count makes the one-variable template win.
    expect(winner('demo://~a-b', 'demo://{x}-{y}', 'demo://~{x}')).toBe('demo://~{x}');
  });

  it('then orders by template string in code-unit order, whatever the definition order', () => {
    expect(winner('demo://a/b', 'demo://{y}/{x}', 'demo://{x}/{y}')).toBe('demo://{x}/{y}');
    expect(winner('demo://a/b', 'demo://{x}/{y}', 'demo://{y}/{x}')).toBe('demo://{x}/{y}');
    const a = parseUriTemplate('demo://{x}/{y}');
    expect(compareTemplatePrecedence(a, parseUriTemplate('demo://{y}/{x}'))).toBeLessThan(0);
    expect(compareTemplatePrecedence(a, parseUriTemplate('demo://{x}/{y}'))).toBe(0);
  });
});
