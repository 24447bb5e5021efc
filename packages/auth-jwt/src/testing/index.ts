// @plant-store/auth-jwt/testing: helpers for testing JWT authentication (test code only).

export { createTestIssuer, type JwksBehaviour, type TestClaims, type TestIssuer, type TestKey } from './test-issuer.js';
