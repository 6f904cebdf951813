/**
 * Base of every admin command: `--json` prints one JSON object on stdout and nothing else; failures
 * exit non-zero with a one-line reason on stderr.
 */
import { CommandRunner, Option } from 'nest-commander';
import { ApiError } from '../http/api-error.js';
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

  async run(params: string[], options: O): Promise<void> {
    try {
      const result = await this.execute(params, options);
      process.stdout.write(options.json ? `${JSON.stringify(result)}\n` : `${this.text(result)}\n`);
    } catch (err) {
      process.stderr.write(`error: ${describe(err)}\n`);
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
