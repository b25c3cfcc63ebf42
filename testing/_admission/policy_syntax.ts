/**
 * The object construction of mutating policies' expressions
 * (`Object{metadata: Object.metadata{labels: {...}}}`, `JSONPatch{op: ...}`)
 * read as map literals (`{'metadata': {'labels': {...}}}`), which the CEL
 * engine evaluates without the kind's declared types: the API server
 * type-checks the fields against the kind's schema, the fake takes any.
 * `jsonpatch.escapeKey(k)` reads as the two replacements it makes.
 *
 * @module
 */

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const SPACE = /\s*/y;

type Frame = "(" | "[" | "map" | "object" | "value" | "escape";

const ESCAPE_KEY = /jsonpatch\s*\.\s*escapeKey\s*\(/y;

/**
 * Rewrites `Object…{field: x}` and `JSONPatch{field: x}` into
 * `{'field': dyn(x)}` (the fields' types differ, a map literal's may not),
 * leaving string literals and everything else as written.
 */
export function celObjects(expression: string): string {
  return celObjectsMapped(expression).text;
}

/**
 * {@linkcode celObjects}, with where each character of the result comes
 * from in the expression (an error's position is then placed in the text
 * as written).
 */
export function celObjectsMapped(
  expression: string,
): { text: string; source: number[] } {
  if (!/\b(Object|JSONPatch|jsonpatch)\b/.test(expression)) {
    return { text: expression, source: [...expression].map((_, i) => i) };
  }
  let text = "";
  const source: number[] = [];
  // Appends `piece`, copied from `from` on (or inserted there).
  const emit = (piece: string, from: number, copied = true): void => {
    text += piece;
    for (let k = 0; k < piece.length; k++) {
      source.push(copied ? from + k : from);
    }
  };
  const frames: Frame[] = [];
  // Whether the next identifier may be a field name (after `{` or `,` of
  // an object construction).
  let fieldStart = false;
  let i = 0;
  while (i < expression.length) {
    const c = expression[i]!;
    const quoted = stringAt(expression, i);
    if (quoted > i) {
      emit(expression.slice(i, quoted), i);
      i = quoted;
      fieldStart = false;
      continue;
    }
    if (/\s/.test(c)) {
      emit(c, i);
      i++;
      continue;
    }
    ESCAPE_KEY.lastIndex = i;
    if (ESCAPE_KEY.test(expression)) {
      // jsonpatch.escapeKey(k): `~` as `~0`, then `/` as `~1` (RFC 6901).
      emit("(", i, false);
      frames.push("escape");
      i = ESCAPE_KEY.lastIndex;
      fieldStart = false;
      continue;
    }
    IDENT.lastIndex = i;
    const ident = IDENT.exec(expression);
    if (ident !== null) {
      const word = ident[0];
      let end = i + word.length;
      if (fieldStart && frames.at(-1) === "object") {
        SPACE.lastIndex = end;
        SPACE.exec(expression);
        if (expression[SPACE.lastIndex] === ":") {
          const colon = SPACE.lastIndex;
          SPACE.lastIndex = colon + 1;
          SPACE.exec(expression);
          if (/^[,}]?$/.test(expression[SPACE.lastIndex] ?? "")) {
            // No value: left for the parser to refuse where it is.
            emit(`'${word}':`, i, false);
          } else {
            emit(`'${word}': dyn(`, i, false);
            // The value runs to the object's next `,` or `}`.
            frames.push("value");
          }
          i = colon + 1;
          fieldStart = false;
          continue;
        }
      }
      if (word === "Object" || word === "JSONPatch") {
        // A type name, dotted (`Object.spec.template`), then `{`.
        let at = end;
        for (;;) {
          SPACE.lastIndex = at;
          SPACE.exec(expression);
          const dot = SPACE.lastIndex;
          if (word === "JSONPatch" || expression[dot] !== ".") break;
          SPACE.lastIndex = dot + 1;
          SPACE.exec(expression);
          IDENT.lastIndex = SPACE.lastIndex;
          const next = IDENT.exec(expression);
          if (next === null) break;
          at = IDENT.lastIndex;
        }
        SPACE.lastIndex = at;
        SPACE.exec(expression);
        if (expression[SPACE.lastIndex] === "{") {
          emit("{", i, false);
          frames.push("object");
          i = SPACE.lastIndex + 1;
          fieldStart = true;
          continue;
        }
        end = i + word.length;
      }
      emit(word, i);
      i = end;
      fieldStart = false;
      continue;
    }
    if ((c === "," || c === "}") && frames.at(-1) === "value") {
      frames.pop();
      emit(")", i, false);
    }
    if (c === ")" && frames.at(-1) === "escape") {
      frames.pop();
      emit(").replace('~', '~0').replace('/', '~1')", i, false);
      i++;
      fieldStart = false;
      continue;
    }
    if (c === "{") frames.push("map");
    else if (c === "(" || c === "[") frames.push(c);
    else if (c === "}" || c === ")" || c === "]") frames.pop();
    fieldStart = c === "," && frames.at(-1) === "object";
    emit(c, i);
    i++;
  }
  return { text, source };
}

// The end of a string or bytes literal that starts at `i`, else `i`.
function stringAt(text: string, i: number): number {
  let j = i;
  let raw = false;
  while (j < i + 2 && /[rRbB]/.test(text[j] ?? "")) {
    if (/[rR]/.test(text[j]!)) raw = true;
    j++;
  }
  const quote = text[j];
  if (quote !== "'" && quote !== '"') return i;
  if (j > i && /[A-Za-z0-9_]/.test(text[i - 1] ?? "")) return i;
  const triple = text.startsWith(quote.repeat(3), j);
  const close = triple ? quote.repeat(3) : quote;
  let k = j + close.length;
  while (k < text.length) {
    if (!raw && text[k] === "\\") {
      k += 2;
      continue;
    }
    if (text.startsWith(close, k)) return k + close.length;
    if (!triple && text[k] === "\n") break;
    k++;
  }
  return text.length;
}
