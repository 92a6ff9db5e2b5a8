// How GARM's SQLite store compares the names it keys with COLLATE NOCASE (endpoints, credentials, entities, tags).

/** SQLite's NOCASE collation folds the 26 ASCII letters only: "É" and "é" stay different names. */
const foldAscii = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

export const sameName = (a: string, b: string) => foldAscii(a) === foldAscii(b);
