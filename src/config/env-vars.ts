/** Reading single environment variables for the configuration (app-config.ts and its parts). */

/** A setting that does not validate: the process refuses to start and names the variable. */
export class ConfigError extends Error {}

/** An integer variable within [min, max]; `fallback` when unset or empty. */
export function intVar(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}`);
  return value;
}
