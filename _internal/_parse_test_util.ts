// Records the texts JSON.parse is called with until disposed, for the tests
// of the parse that leaves each object's resourceVersion out: one text other
// than the one given means the versions were left out and the parse kept.

/** The texts JSON.parse was called with since the spy was made. */
export interface ParseSpy extends Disposable {
  readonly texts: string[];
}

/** Wraps JSON.parse until the spy is disposed. */
export function spyOnParse(): ParseSpy {
  const original = JSON.parse;
  const texts: string[] = [];
  JSON.parse = ((text: string, reviver?: never) => {
    texts.push(text);
    return original(text, reviver);
  }) as typeof JSON.parse;
  return {
    texts,
    [Symbol.dispose](): void {
      JSON.parse = original;
    },
  };
}
