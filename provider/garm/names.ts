// How GARM v0.2.1 compares the names it keys objects by: one function per kind of key, used wherever pulumi-garm
// matches a name against GARM's (a look-up, an adoption, a dependents check, a plan that may collide).
//
// GARM's SQLite columns declared `collate nocase` compare names ignoring case, and so does every column gorm makes as a
// foreign key to one (it takes the referenced column's type): an entity's endpoint_name follows the endpoint's key.
// Template names are a plain unique index and compare byte for byte.

/**
 * SQLite's NOCASE collation folds the 26 ASCII letters only: "É" and "é" stay two names in GARM. Exported as the key
 * for comparisons made field by field (an identity check) of endpoint, credentials and entity names.
 */
export function foldAscii(name: string): string {
  return name.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/**
 * Endpoint names: the primary key of one table for GitHub and Gitea endpoints (database/sql/models.go L464), so
 * `GitHub.com` is GARM's `github.com`, and a Gitea endpoint's name is taken for GitHub too (github.go L38, gitea.go L42).
 */
export function sameEndpointName(a: string, b: string): boolean {
  return foldAscii(a) === foldAscii(b);
}

/** Credentials names: unique per forge, ignoring case (models.go L483, L510); GARM resolves them so (github.go L302-331). */
export function sameCredentialsName(a: string, b: string): boolean {
  return foldAscii(a) === foldAscii(b);
}

/**
 * Organization and enterprise names, and a repository's `owner/name`: GARM's duplicate check and its look-up by name
 * ignore case (organizations.go L282-299, repositories.go L260-276, enterprise.go L253-269), though its list filter
 * `?name=` compares exactly (organizations.go L103-105).
 */
export function sameEntityName(a: string, b: string): boolean {
  return foldAscii(a) === foldAscii(b);
}

/** Template names: unique per owner, compared byte for byte (models.go L96; templates.go L112-140). */
export function sameTemplateName(a: string, b: string): boolean {
  return a === b;
}

/**
 * The name to record for an object GARM answered: ours when GARM's is the same key in its own spelling (GARM answers
 * with the spelling it stored), so that a program written in another case plans no rename; GARM's otherwise.
 */
export function recordedName(same: (a: string, b: string) => boolean, ours: string | undefined, garms: string): string {
  return ours && same(ours, garms) ? ours : garms;
}
