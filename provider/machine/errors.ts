// The error a file edit on a machine fails with: what went wrong and what the file holds now.

/** What the edited file holds after a failed edit. */
export type FileState =
  /** The old bytes: nothing reached the file. */
  | "unchanged"
  /** The old bytes, written back after a part of the new ones reached it. */
  | "restored"
  /** Either the old or the new bytes, each whole (a rename whose answer was lost, with no way left to ask). */
  | "old-or-new"
  /** Neither: a part of the new bytes, which could not be undone; the message says where a copy of the old ones is. */
  | "damaged";

/** A file edit that failed; `fileState` says what the file holds, and the message says it in words. */
export class FileEditError extends Error {
  override readonly name: string = "FileEditError";
  constructor(
    message: string,
    readonly fileState: FileState = "unchanged",
  ) {
    super(message);
  }
}

/** The `code` of an error from a machine whose connection ended while an operation on it was in flight. */
export const CONNECTION_LOST = "ECONNLOST";

/** The connection to the file's machine was lost during an operation. */
export class ConnectionLostError extends FileEditError {
  readonly code = CONNECTION_LOST;
  /** Whether the message already says what became of the file's lock. */
  lockTold = false;
}
