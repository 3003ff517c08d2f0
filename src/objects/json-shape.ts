// Checks JSON text as bytes before anything parses it: that it is JSON (exactly what
// JSON.parse accepts of its UTF-8 decoding), how many values it holds and how deeply it
// nests — in constant memory, stopping at the first value past a limit. JSON.parse costs up
// to ~200 bytes per value and a 64 MiB text can hold 30 million, so untrusted JSON is
// measured first and parsed only when that is affordable.

export interface JsonLimits {
  /** The most values (containers and primitives; keys not counted). */
  readonly maxValues: number;
  /** The most levels of nesting (a top-level container is level 1). */
  readonly maxDepth: number;
}

export interface JsonShape {
  readonly values: number;
  readonly depth: number;
}

/** Not JSON ("syntax"), or past a limit ("limit"); `offset` is where in the text it was found. */
export class JsonShapeError extends Error {
  constructor(
    readonly why: string,
    readonly offset: number,
    readonly kind: "syntax" | "limit",
  ) {
    super(`${why} (at byte ${offset})`);
  }
}

const ARRAY = 1;
const OBJECT = 2;

// What the scanner expects next.
const VALUE = 0; // any value
const VALUE_OR_CLOSE = 1; // right after "["
const KEY_OR_CLOSE = 2; // right after "{"
const KEY = 3; // after "," in an object
const COLON = 4;
const NEXT = 5; // "," or the container's close
const END = 6; // only whitespace

/** The shape of the JSON text in `bytes[start, end)`; throws JsonShapeError. */
export function jsonShape(bytes: Uint8Array, start: number, end: number, limits: JsonLimits): JsonShape {
  const stack = new Uint8Array(Math.min(limits.maxDepth, end - start) + 1);
  let depth = 0;
  let maxDepth = 0;
  let values = 0;
  let state = VALUE;
  let i = start;
  const fail = (why: string): never => {
    throw new JsonShapeError(why, i - start, "syntax");
  };
  const past = (why: string): never => {
    throw new JsonShapeError(why, i - start, "limit");
  };
  const value = (): void => {
    if (++values > limits.maxValues) past(`it holds more than ${limits.maxValues.toLocaleString("en-US")} values`);
  };
  while (i < end) {
    const c = bytes[i] as number;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      i++;
      continue;
    }
    switch (state) {
      case VALUE:
      case VALUE_OR_CLOSE:
      case NEXT:
        if (state === NEXT && c === 0x2c) {
          state = stack[depth] === ARRAY ? VALUE : KEY;
          i++;
          continue;
        }
        if ((state === NEXT || state === VALUE_OR_CLOSE) && c === 0x5d) {
          if (stack[depth] !== ARRAY) fail("a ] closes an object");
          depth--;
          state = depth === 0 ? END : NEXT;
          i++;
          continue;
        }
        if (state === NEXT) {
          if (c === 0x7d && stack[depth] === OBJECT) {
            depth--;
            state = depth === 0 ? END : NEXT;
            i++;
            continue;
          }
          fail(`unexpected ${show(c)} after a value`);
        }
        value();
        if (c === 0x7b || c === 0x5b) {
          if (depth >= limits.maxDepth) past(`it nests more than ${limits.maxDepth} levels deep`);
          stack[++depth] = c === 0x5b ? ARRAY : OBJECT;
          if (depth > maxDepth) maxDepth = depth;
          state = c === 0x5b ? VALUE_OR_CLOSE : KEY_OR_CLOSE;
          i++;
          continue;
        }
        if (c === 0x22) i = string(bytes, i, end, fail);
        else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) i = number(bytes, i, end, fail);
        else if (c === 0x74) i = literal(bytes, i, end, TRUE, fail);
        else if (c === 0x66) i = literal(bytes, i, end, FALSE, fail);
        else if (c === 0x6e) i = literal(bytes, i, end, NULL, fail);
        else fail(`unexpected ${show(c)} where a value should be`);
        state = depth === 0 ? END : NEXT;
        continue;
      case KEY_OR_CLOSE:
      case KEY:
        if (state === KEY_OR_CLOSE && c === 0x7d) {
          depth--;
          state = depth === 0 ? END : NEXT;
          i++;
          continue;
        }
        if (c !== 0x22) fail(`unexpected ${show(c)} where a key should be`);
        i = string(bytes, i, end, fail);
        state = COLON;
        continue;
      case COLON:
        if (c !== 0x3a) fail(`unexpected ${show(c)} where ":" should be`);
        state = VALUE;
        i++;
        continue;
      default:
        fail(`unexpected ${show(c)} after the end of the value`);
    }
  }
  if (state !== END) fail("the text ends inside a value");
  return { values, depth: maxDepth };
}

const TRUE = Buffer.from("true");
const FALSE = Buffer.from("false");
const NULL = Buffer.from("null");

/** A string starting at the quote at `i`; returns the index after its closing quote. */
function string(b: Uint8Array, i: number, end: number, fail: (why: string) => never): number {
  i++;
  while (i < end) {
    const c = b[i] as number;
    if (c === 0x22) return i + 1;
    if (c < 0x20) fail("a string holds a control character");
    if (c === 0x5c) {
      const e = i + 1 < end ? b[i + 1] : -1;
      if (e === 0x75) {
        for (let k = 2; k < 6; k++) if (i + k >= end || !isHex(b[i + k] as number)) fail("a string holds a malformed \\u escape");
        i += 6;
        continue;
      }
      // " \ / b f n r t
      if (e !== 0x22 && e !== 0x5c && e !== 0x2f && e !== 0x62 && e !== 0x66 && e !== 0x6e && e !== 0x72 && e !== 0x74)
        fail("a string holds an unknown escape");
      i += 2;
      continue;
    }
    i++;
  }
  return fail("the text ends inside a string");
}

/** -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? starting at `i`; returns the index after it. */
function number(b: Uint8Array, i: number, end: number, fail: (why: string) => never): number {
  if (b[i] === 0x2d) i++;
  if (i >= end || !isDigit(b[i] as number)) fail("a number has no digits");
  if (b[i] === 0x30) i++;
  else while (i < end && isDigit(b[i] as number)) i++;
  if (i < end && b[i] === 0x2e) {
    i++;
    if (i >= end || !isDigit(b[i] as number)) fail("a number has no digits after its point");
    while (i < end && isDigit(b[i] as number)) i++;
  }
  if (i < end && (b[i] === 0x65 || b[i] === 0x45)) {
    i++;
    if (i < end && (b[i] === 0x2b || b[i] === 0x2d)) i++;
    if (i >= end || !isDigit(b[i] as number)) fail("a number has no digits in its exponent");
    while (i < end && isDigit(b[i] as number)) i++;
  }
  return i;
}

function literal(b: Uint8Array, i: number, end: number, word: Buffer, fail: (why: string) => never): number {
  for (let k = 0; k < word.length; k++) if (i + k >= end || b[i + k] !== word[k]) fail(`a misspelt ${word.toString()}`);
  return i + word.length;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

function show(c: number): string {
  return c >= 0x21 && c < 0x7f ? JSON.stringify(String.fromCharCode(c)) : `byte 0x${c.toString(16).padStart(2, "0")}`;
}
