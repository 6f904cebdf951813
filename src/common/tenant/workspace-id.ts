/**
 * The workspace id where it is the tenant key: a string the compiler tells apart from other strings, so
 * a contact id, an email or any other text passed where the tenant is expected is a compile error.
 *
 * The brand exists only in types: at run time a `WorkspaceId` is the plain string it was made from.
 * `asWorkspaceId` is the one way to make one, at the boundaries where the tenant is established: the
 * principal resolved from an API key, rows a worker claims across workspaces (they carry their
 * `workspace_id`), queue job payloads, and CLI arguments. Everything past those takes a `WorkspaceId`.
 * Entities' `workspaceId` columns are typed with it too, so rows the ORM reads back already carry one.
 */
declare const tenantKey: unique symbol;

export type WorkspaceId = string & { readonly [tenantKey]: 'WorkspaceId' };

/** A workspace id from a string the caller has established as the tenant key (no check, no copy). */
export function asWorkspaceId(id: string): WorkspaceId {
  return id as WorkspaceId;
}
