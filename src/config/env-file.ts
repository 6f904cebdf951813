/**
 * `.env` in the folder the service (or the CLI) is started from is read at start, with Node's own
 * parser (`util.parseEnv`, the one `node --env-file` uses): a variable already set in the environment
 * wins over the file, as with `node --env-file`. `ENV_FILE` names another file; `ENV_FILE=` (empty) reads none. A named
 * file that is missing is an error; the default `.env` is optional.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';

export class EnvFileError extends Error {}

/** Reads the env file; returns the path it read, or null when there was none to read. */
export function loadEnvFile(env: NodeJS.ProcessEnv = process.env): string | null {
  const named = env.ENV_FILE;
  if (named === '') return null;
  const path = resolve(named ?? '.env');
  if (!existsSync(path)) {
    if (named === undefined) return null;
    throw new EnvFileError(
      `ENV_FILE=${named}: no such file (unset ENV_FILE to read ./.env, or ENV_FILE= to read none)`,
    );
  }
  try {
    for (const [name, value] of Object.entries(parseEnv(readFileSync(path, 'utf8')))) {
      if (env[name] === undefined) env[name] = value;
    }
  } catch (err) {
    throw new EnvFileError(
      `cannot read ${path}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
    );
  }
  return path;
}
