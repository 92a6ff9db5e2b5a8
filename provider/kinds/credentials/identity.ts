// What identifies GarmCredentials in GARM. GARM v0.2.1 keeps GitHub and Gitea credentials in two tables, each with its
// own id counter (database/sql/models.go L480 and L507), so GitHub credentials 1 and Gitea credentials 1 can both exist:
// an id means something only with its forge. And a restored database hands a deleted id out again, so the holder of
// the id must also have this resource's name (unique per forge, compared ignoring case: `collate nocase`, L483 and
// L510; this resource's renames keep it in state) and endpoint (which GARM cannot change; its key ignores case too, L464).
import type { CredentialsView, Forge } from "../../garm/client";
import { isOurHolder } from "../../common/holder";
import { foldAscii } from "../../garm/names";
import type { CredentialsOutputs } from "./inputs";
import { numericImportId } from "../../common/import-id";

const FORGES: readonly Forge[] = ["github", "gitea"];

export function isSameCredentials(outputs: Partial<CredentialsOutputs>, view: CredentialsView, forge: Forge): boolean {
  return isOurHolder(
    { forge: outputs.forge, name: outputs.name && foldAscii(outputs.name), endpoint: outputs.endpoint && foldAscii(outputs.endpoint) },
    { forge: view.forge || forge, name: foldAscii(view.name), endpoint: foldAscii(view.endpoint) },
  );
}

/** "GARM's github credentials 3 are now ci-bot on endpoint github.com": how messages name the holder of an id. */
export function describeCredentialsHolder(forge: Forge, view: CredentialsView): string {
  return `GARM's ${forge} credentials id ${view.id} now holds ${view.name} on endpoint ${view.endpoint}`;
}

/**
 * The Pulumi id of credentials, for created, adopted and imported ones alike: `<forge>/<GARM id>`, as each forge numbers
 * its own. A bare number would be shared by GitHub and Gitea credentials 1, and Pulumi's `import --file` codegen drops a
 * value two resources share (pulumi-behaviour.md §2.6). State written before this keeps its bare-number id, which read
 * still takes (the outputs name the forge and the GARM id; update and delete use only those).
 */
export function credentialsPulumiId(forge: Forge, credentialsId: number): string {
  return `${forge}/${credentialsId}`;
}

/** The GARM id a Pulumi id holds: `<forge>/<n>` or, in older state, a bare `<n>`; undefined for anything else. */
export function garmIdOfPulumiId(id: string): number | undefined {
  const match = /^(?:(\w+)\/)?(\d+)$/.exec(id);
  if (!match || (match[1] !== undefined && !FORGES.includes(match[1] as Forge))) return undefined;
  const n = Number(match[2]);
  return n > 0 ? n : undefined;
}

/**
 * The forge and GARM id an import id names: `github/3` or `gitea/3`. A bare number is refused, since both forges
 * may have credentials of that id.
 */
export function parseCredentialsId(id: string): { forge: Forge; credentialsId: number } {
  const match = /^(\w+)\/(.*)$/s.exec(id);
  const forge = match?.[1] as Forge | undefined;
  if (match && forge !== undefined && FORGES.includes(forge)) return { forge, credentialsId: numericImportId(match[2]!, `GarmCredentials id ${forge}/…`, `garm-cli ${forge} credentials list`) };
  throw new Error(
    `GarmCredentials id ${JSON.stringify(id)} does not say which forge: GARM numbers GitHub and Gitea credentials separately, ` +
      "so give the forge and the id, e.g. github/3 or gitea/3 (garm-cli github credentials list or gitea credentials list shows the id)",
  );
}
