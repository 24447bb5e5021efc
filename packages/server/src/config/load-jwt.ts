import type { JwtAuthenticatorOptions } from '@plant-store/auth-jwt';
// The checker alone: the package's entry point loads jose, which a service without JWT should not spend start-up time on.
import { parseJwksFile } from '@plant-store/auth-jwt/parse-jwks';
import { ConfigurationError, ValidationError } from '@plant-store/core';
import { SETTINGS, settingName, type SettingKey } from './settings.js';

export type JwtConfig = Pick<JwtAuthenticatorOptions, 'jwksUrl' | 'jwks' | 'issuer' | 'audience' | 'tenantClaim'>;

/** The JWT settings, or `undefined` without a JWKS setting; a bad JWKS file stops start-up with one line naming the variable. */
export function loadJwt(
  raw: (key: SettingKey) => string | undefined,
  file: (key: SettingKey) => { path: string; content: string } | undefined,
): JwtConfig | undefined {
  const fail = (key: SettingKey, message: string) => new ConfigurationError(settingName(key), message);
  const url = raw('jwtJwksUrl')?.trim();
  const jwksFile = file('jwtJwksFile');
  if (url === undefined && jwksFile === undefined) {
    const stray = (['jwtIssuer', 'jwtAudience'] as const).find((key) => raw(key) !== undefined);
    if (stray) throw fail(stray, `needs ${settingName('jwtJwksUrl')} or ${settingName('jwtJwksFile')}`);
    return undefined;
  }
  if (url !== undefined && jwksFile !== undefined) throw fail('jwtJwksFile', `give this or ${settingName('jwtJwksUrl')}, not both`);
  const jwksUrl = url === undefined ? undefined : URL.canParse(url) ? new URL(url) : undefined;
  if (url !== undefined && jwksUrl?.protocol !== 'https:' && jwksUrl?.protocol !== 'http:') {
    throw fail('jwtJwksUrl', 'must be an http or https URL');
  }
  const source = settingName(url !== undefined ? 'jwtJwksUrl' : 'jwtJwksFile');
  const list = (key: 'jwtIssuer' | 'jwtAudience') => {
    const values = (raw(key) ?? '')
      .split(',')
      .map((value) => value.trim())
      .filter((value) => value !== '');
    if (values.length === 0) throw fail(key, `is required when ${source} is set (comma-separated for several)`);
    return values;
  };
  const tenantClaim = (raw('jwtTenantClaim') ?? SETTINGS.jwtTenantClaim.default).trim();
  if (tenantClaim === '') throw fail('jwtTenantClaim', 'must be a claim name');
  const common = { issuer: list('jwtIssuer'), audience: list('jwtAudience'), tenantClaim };
  if (jwksUrl !== undefined) return { jwksUrl, ...common };
  try {
    return { jwks: parseJwksFile(jwksFile!.path, jwksFile!.content), ...common };
  } catch (error) {
    throw error instanceof ValidationError ? fail('jwtJwksFile', error.message) : error;
  }
}
