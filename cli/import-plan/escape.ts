// The one way a string import-plan takes from GARM (or from its flags) reaches what it writes: one escaper per target,
// used by every writer. GARM names are free text: a name with a newline would end a comment and run its next line as
// code at `pulumi up`, or add a line to the printed shell commands. Each escaper gives a literal that its language's
// parser reads back as exactly the original string; comments carry a name only quoted, with no raw line break in it.

/**
 * Characters escaped wherever they appear: C0 and C1 controls and DEL; line and paragraph separators (line breaks to
 * JavaScript, and to YAML 1.1); the invisible and bidirectional controls that make a line read otherwise than it runs
 * (Trojan Source); the byte-order mark; and a lone surrogate, which UTF-8 cannot encode.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Whether one character (a code point) is UNSAFE. */
const UNSAFE_ONE = new RegExp(UNSAFE.source);
const unsafe = (c: string) => c.length === 1 && UNSAFE_ONE.test(c);

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, "0");

/** `\uXXXX` for each unsafe character of `text`: valid in a JSON, JavaScript or YAML double-quoted string. */
const escapeUnsafe = (text: string) => text.replace(UNSAFE, (c) => `\\u${hex(c, 4)}`);

/**
 * The same for JSON.stringify's output, which has escaped C0 controls and lone surrogates in its strings already and
 * uses newlines between them: the rest of UNSAFE, each a whole character inside a string there (JSON's syntax is ASCII).
 */
const UNSAFE_AFTER_JSON = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;
const escapeAfterJson = (json: string) => json.replace(UNSAFE_AFTER_JSON, (c) => `\\u${hex(c, 4)}`);

/** A TypeScript string literal: JSON.stringify's (the quote, the backslash, C0 controls, lone surrogates), and UNSAFE. */
export function tsString(value: string): string {
  return escapeAfterJson(JSON.stringify(value));
}

const TS_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A property name in a TypeScript object literal: bare when it is an identifier, quoted otherwise, and computed for
 * `__proto__`, which as a plain or quoted name would set the object's prototype instead of adding the key.
 */
export function tsKey(key: string): string {
  if (key === "__proto__") return `[${tsString(key)}]`;
  return TS_IDENTIFIER.test(key) ? key : tsString(key);
}

/** A Python string literal (`"…"`, never an f-string): the quote, the backslash and UNSAFE escaped. */
export function pyString(value: string): string {
  let out = '"';
  for (const c of value) {
    if (c === "\\") out += "\\\\";
    else if (c === '"') out += '\\"';
    else if (c === "\n") out += "\\n";
    else if (c === "\r") out += "\\r";
    else if (c === "\t") out += "\\t";
    else if (unsafe(c)) out += c.charCodeAt(0) < 0x100 ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`;
    else out += c;
  }
  return `${out}"`;
}

/**
 * JSON text for `value` that YAML parsers read the same: JSON.stringify, with UNSAFE escaped, since YAML does not allow
 * DEL, C1 controls or the BOM raw and YAML 1.1 breaks lines at U+2028 and U+2029. The import file is written with it.
 */
export function jsonText(value: unknown, indent = 2): string {
  return escapeAfterJson(JSON.stringify(value, null, indent));
}

/** A YAML scalar: double-quoted JSON, which YAML reads as the same string. */
export function yamlString(value: string): string {
  return jsonText(value, 0);
}

const SHELL_BARE = /^[A-Za-z0-9_.:/=@%+,-]+$/;

/**
 * One word of a POSIX shell command: bare when nothing in it is special, single-quoted otherwise (nothing is special
 * inside, and `'` is closed, escaped and reopened), and `$'…'` with escapes when it holds a character that must not
 * reach a terminal raw. A shell word cannot hold NUL: that throws.
 */
export function shellWord(value: string): string {
  if (value.includes("\u0000")) throw new Error(`a shell word cannot hold NUL: ${tsString(value)}`);
  if (SHELL_BARE.test(value)) return value;
  if (![...value].some(unsafe)) return `'${value.replace(/'/g, "'\\''")}'`;
  let out = "$'";
  for (const c of value) {
    if (c === "\\" || c === "'") out += `\\${c}`;
    // bash's \xNN is a byte, \uXXXX a character: \x for ASCII only.
    else if (unsafe(c)) out += c.charCodeAt(0) < 0x80 ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`;
    else out += c;
  }
  return `${out}'`;
}

/**
 * A string as a comment may show it, in any of the languages written (`//`, `#`, shell `#`): quoted as JSON, with
 * UNSAFE escaped, so it holds no line break and reads back with JSON.parse. A name from GARM is never in a comment raw.
 */
export function commentQuote(value: string): string {
  return tsString(value);
}

/** Free text (a message, a URL) for a comment: any character that could end the line or hide text shown escaped. */
export function commentText(text: string): string {
  return escapeUnsafe(text);
}
