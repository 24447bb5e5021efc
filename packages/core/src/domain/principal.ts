/** What a principal may do: read (list, get) and write (create, delete). */
export type Scope = 'plants:read' | 'plants:write';

export const ALL_SCOPES: readonly Scope[] = ['plants:read', 'plants:write'];

/** An authenticated caller. Every operation sees only its tenant's plants. */
export interface Principal {
  readonly subject: string;
  readonly tenant: string;
  readonly scopes: readonly Scope[];
}
