// Public API of @plant-store/auth-jwt.

export { JWT_ALGORITHMS, jwtAuthenticator, type JwtAuthenticatorOptions } from './jwt-authenticator.js';
export { JwksUnavailableError } from './jwks-unavailable-error.js';
export { parseJwks } from './parse-jwks.js';
