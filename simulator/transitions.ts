// Instance status transitions GARM's UpdateInstance allows (garm-behaviour.md §7.1, §6 step 4).
import type { InstanceStatus } from "./types";

const allowed: Record<InstanceStatus, readonly InstanceStatus[]> = {
  running: ["pending_delete", "pending_force_delete", "stopped", "unknown"],
  stopped: ["running", "pending_delete", "pending_force_delete", "unknown"],
  creating: ["error", "running"],
  pending_delete: ["deleting", "pending_force_delete"],
  pending_force_delete: ["deleting"],
  deleting: ["error", "deleted", "pending_delete"],
  deleted: [],
  error: ["pending_delete", "pending_force_delete", "unknown", "deleting"],
  pending_create: ["pending_delete", "creating", "pending_force_delete"],
  unknown: ["running", "stopped", "pending_delete", "pending_force_delete", "error"],
};

/** Statuses on the deletion lane (§6 step 4, HEAD's InstanceIsBeingDeleted). */
export const deletionLane: readonly InstanceStatus[] = ["pending_delete", "pending_force_delete", "deleting", "deleted"];

/** True when `from → to` is allowed; the same status is always allowed (a no-op). */
export function canTransition(from: InstanceStatus, to: InstanceStatus): boolean {
  return from === to || allowed[from].includes(to);
}
