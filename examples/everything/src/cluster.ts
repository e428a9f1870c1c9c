import { createHash } from 'node:crypto';
import type { MrtrKey } from '@snodo/core';

/** Shortest secret `SNODO_MRTR_SECRET` takes, in characters (core wants 32 bytes or more). */
export const MIN_SECRET_CHARACTERS = 32;

/**
 * The MRTR keyring in `SNODO_MRTR_SECRET`: one secret, or several separated by commas for a
 * rotation (the first signs, every one verifies). Each key is named by a digest of its secret, so
 * instances given the same secret agree on its name without configuring one. Returns the reason
 * when the variable is unusable.
 */
export function mrtrKeysFromEnv(value: string | undefined): MrtrKey[] | string {
  if (value === undefined || value.trim() === '') {
    return `SNODO_MRTR_SECRET is required with --redis: every instance needs the same MRTR key (${MIN_SECRET_CHARACTERS} characters or more; several, comma-separated, during a rotation)`;
  }
  const secrets = value.split(',').map((secret) => secret.trim());
  const short = secrets.findIndex((secret) => secret.length < MIN_SECRET_CHARACTERS);
  if (short !== -1) {
    return `SNODO_MRTR_SECRET: secret ${short + 1} has ${secrets[short]?.length} characters; each needs ${MIN_SECRET_CHARACTERS} or more`;
  }
  return secrets.map((secret) => ({ name: keyName(secret), secret }));
}

/**
 * `k` and 12 base64url characters of the secret's SHA-256: the same on every instance, and no
 * more help to a guesser than any state's HMAC already is.
 */
export function keyName(secret: string): string {
  return `k${createHash('sha256').update(secret).digest('base64url').slice(0, 12)}`;
}
