import { SETTINGS, type SettingDefinition } from './settings.js';

export const SETTINGS_START = '<!-- settings:start -->';
export const SETTINGS_END = '<!-- settings:end -->';

/** A table cell: a `|` would end the cell early, a line break the row. */
const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The Markdown table of every setting, from {@link SETTINGS} alone, so the docs cannot drift from the service. */
export function settingsMarkdown(settings: Record<string, SettingDefinition> = SETTINGS): string {
  const rows = Object.values(settings).map((setting) =>
    [`\`${setting.env}\``, `\`--${setting.flag}\``, setting.default === undefined ? '—' : `\`${setting.default}\``, setting.help].map(cell),
  );
  return [['Variable', 'Flag', 'Default', 'Meaning'], ['---', '---', '---', '---'], ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');
}

/** `document` with the table between the markers replaced; throws when they are missing, so a deleted marker is not ignored. */
export function withSettingsTable(document: string, table: string = settingsMarkdown()): string {
  const start = document.indexOf(SETTINGS_START);
  const end = document.indexOf(SETTINGS_END);
  if (start < 0 || end < start) throw new Error(`no ${SETTINGS_START} … ${SETTINGS_END} markers`);
  return `${document.slice(0, start + SETTINGS_START.length)}\n${table}\n${document.slice(end)}`;
}
