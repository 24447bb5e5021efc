import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './001-initial.js';

/**
 * Every schema version, in order. Listed in code rather than read from a
 * folder, so bundling or building never loses one. Never edit or rename an
 * applied migration: add the next number.
 */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '001-initial': initial,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return MIGRATIONS;
  },
};
