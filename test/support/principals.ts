import { ALL_SCOPES, type Principal, type Scope } from '@plant-store/core';

// Callers of the library in its own tests: two tenants with every scope, and
// one of acme's with only the scopes a test gives it.

export const acme: Principal = { subject: 'a', tenant: 'acme', scopes: ALL_SCOPES };
export const globex: Principal = { subject: 'g', tenant: 'globex', scopes: ALL_SCOPES };
export const only = (...scopes: Scope[]): Principal => ({ subject: 's', tenant: 'acme', scopes });
