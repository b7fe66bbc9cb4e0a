/**
 * JSON parsing that keeps integers beyond Number.MAX_SAFE_INTEGER exact. OneBot
 * implementations send ids such as NapCat's 19-digit forward ids as bare JSON numbers;
 * JSON.parse would round them, so they come back as decimal strings instead.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
/** Stands for "the previous token was a number" in the scanner's `previous` slot. */
const NUMBER_TOKEN = -1;
const NOTHING_YET = 0;

/** Every unsafe integer has at least 16 digits; text without such a run needs no scanning. */
const LONG_DIGIT_RUN = /\d{16}/;
const NUMBER_TOKEN_PATTERN = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const JSON_INTEGER = /^-?[1-9]\d*$/;

/**
 * Like JSON.parse, but an integer literal outside the safe range is returned as a string of
 * its exact digits. Integers inside string literals, floats and exponents are left alone.
 * Throws a SyntaxError exactly when JSON.parse would.
 */
export function parseJsonLossless(text: string): unknown {
  if (!LONG_DIGIT_RUN.test(text)) return JSON.parse(text);
  return JSON.parse(quoteUnsafeIntegers(text));
}

/** Wraps unsafe integer tokens in quotes; everything else is copied verbatim. */
function quoteUnsafeIntegers(text: string): string {
  let output = "";
  let copiedUpTo = 0;
  const openContainers: number[] = [];
  let previous = NOTHING_YET;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = endOfString(text, index);
      previous = QUOTE;
      continue;
    }
    if (code === MINUS || (code >= DIGIT_0 && code <= DIGIT_9)) {
      NUMBER_TOKEN_PATTERN.lastIndex = index;
      const token = NUMBER_TOKEN_PATTERN.exec(text)?.[0] ?? text[index]!;
      // Only quote where a value may stand: quoting an object key would turn invalid JSON valid.
      if (isValuePosition(previous, openContainers) && isUnsafeInteger(token)) {
        output += `${text.slice(copiedUpTo, index)}"${token}"`;
        copiedUpTo = index + token.length;
      }
      index += token.length;
      previous = NUMBER_TOKEN;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) openContainers.push(code);
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) openContainers.pop();
    if (!isJsonWhitespace(code)) previous = code;
    index++;
  }
  return copiedUpTo === 0 ? text : output + text.slice(copiedUpTo);
}

/** Index just past the closing quote of the string starting at `start` (text length if unterminated). */
function endOfString(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    // An odd run of backslashes escapes this quote.
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

function isValuePosition(previous: number, openContainers: number[]): boolean {
  if (previous === NOTHING_YET || previous === COLON || previous === OPEN_BRACKET) return true;
  return previous === COMMA && openContainers[openContainers.length - 1] === OPEN_BRACKET;
}

function isUnsafeInteger(token: string): boolean {
  return token.length >= 16 && JSON_INTEGER.test(token) && !Number.isSafeInteger(Number(token));
}

function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}
