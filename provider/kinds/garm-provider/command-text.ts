// How the restart command appears in log lines and errors: never verbatim, because it can carry a token or password.

const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const PROGRAM_NAME = /^[A-Za-z0-9_.\/+-]{1,64}$/;
/** What separates the words of a command that could be a secret on their own (`-H "Authorization: Bearer x"`, `K=v`). */
const WORD_SEPARATORS = /[\s"'`=:@?&,;()<>|]+/;

/**
 * Whether a word could be a credential: long enough, and either mixing letters and digits or very long. An absolute
 * path is not taken for one.
 */
export function looksSecret(word: string): boolean {
  if (word.startsWith("/") || word.length < 8) return false;
  return (/[0-9]/.test(word) && /[A-Za-z]/.test(word)) || word.length >= 20;
}

/**
 * Names `command` without its arguments: "the restart command `systemctl …`", or "the restart command" when even its
 * program name is not safe to show. Leading `NAME=value` assignments are skipped.
 */
export function describeCommand(command: string): string {
  const words = command.trim().split(/\s+/);
  const at = words.findIndex((w) => !ENV_ASSIGNMENT.test(w));
  const program = at === -1 ? undefined : words[at];
  if (!program || !PROGRAM_NAME.test(program) || looksSecret(program)) return "the restart command";
  return `the restart command \`${program}${words.length > at + 1 ? " …" : ""}\``;
}

/** `text` with every secret-looking word of `command` replaced by `***` (the command's own output may echo them). */
export function maskCommandSecrets(text: string, command: string): string {
  const secrets = [...new Set(command.split(WORD_SEPARATORS).filter(looksSecret))].sort((a, b) => b.length - a.length);
  return secrets.reduce((out, s) => out.split(s).join("***"), text);
}
