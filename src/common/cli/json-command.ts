/**
 * Base of every admin command: `--json` prints one JSON object on stdout and nothing else; failures
 * exit non-zero with a one-line reason on stderr.
 */
import { CommandRunner, Option } from 'nest-commander';
import { ApiError } from '../http/api-error.js';
import { isUuid } from '../http/id-params.js';
import { CliError } from './cli-error.js';

export interface JsonFlag {
  json?: boolean;
}

export { CliError };

export abstract class JsonCommand<O extends JsonFlag = JsonFlag> extends CommandRunner {
  protected abstract execute(params: string[], options: O): Promise<Record<string, unknown>>;

  /** How the result reads for a person; the JSON is printed when no text is given. */
  protected text(result: Record<string, unknown>): string {
    return JSON.stringify(result, null, 2);
  }

  /**
   * What the command acts on, for a not-found refusal: "key 99999", "organization <uuid>". The API's
   * 404 body says only "Resource not found"; a person at a terminal needs the kind and the id.
   */
  protected subject(_options: O): string | undefined {
    return undefined;
  }

  async run(params: string[], options: O): Promise<void> {
    try {
      const result = await this.execute(params, options);
      process.stdout.write(options.json ? `${JSON.stringify(result)}\n` : `${this.text(result)}\n`);
    } catch (err) {
      const subject = err instanceof ApiError && err.getStatus() === 404 ? this.subject(options) : undefined;
      process.stderr.write(`error: ${subject ? `${subject} not found` : describe(err)}\n`);
      process.exitCode = 1;
    }
  }

  @Option({ flags: '--json', description: 'print one JSON object on stdout' })
  parseJson(): boolean {
    return true;
  }
}

function describe(err: unknown): string {
  if (err instanceof ApiError) {
    const { error } = err.body;
    return `${error.field ? `${error.field}: ` : ''}${error.message}`.replace(/\s+/g, ' ');
  }
  if (err instanceof Error) return err.message.split('\n')[0];
  return String(err);
}

export function parseIntFlag(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new CliError(`--${name} must be a non-negative integer`);
    return Number(value);
  };
}

export function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined || value === null || value === '') throw new CliError(`--${flag} is required`);
  return value;
}

/** A flag that names a UUID: `--org must be an organization UUID` before any lookup. */
export function uuidFlag(name: string, kind: string) {
  return (value: string): string => {
    if (!isUuid(value)) throw new CliError(`--${name} must be ${kind} UUID`);
    return value.toLowerCase();
  };
}
