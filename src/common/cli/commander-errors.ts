/**
 * One error path for every command of the CLI. nest-commander applies `errorHandler` (commander's
 * `exitOverride`) to the root command only, so a subcommand's parse error (a missing or unknown
 * option) called `process.exit()` itself, and the root's errors were printed twice (commander's
 * own line, then the handler's). Here every command of the tree, once built, prints its error as
 * one line and throws it instead of exiting: `cli.ts` sets the exit status from it and still closes
 * the application and the embedded database.
 */
import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectCommander } from 'nest-commander';

/** What is used here of a commander `Command` (nest-commander's own copy, not the root package's). */
interface CommandNode {
  readonly commands: readonly CommandNode[];
  configureOutput(output: { outputError: (str: string, write: (s: string) => void) => void }): unknown;
  exitOverride(callback: (err: Error) => never): unknown;
}

@Injectable()
export class CommanderErrors implements OnApplicationBootstrap {
  constructor(@InjectCommander() private readonly root: CommandNode) {}

  onApplicationBootstrap(): void {
    const walk = (command: CommandNode): void => {
      command.configureOutput({
        // "(Did you mean …?)" joins the reason on its one line.
        outputError: (str, write) => write(`${str.trim().replace(/\s*\n\s*/g, ' ')}\n`),
      });
      command.exitOverride((err) => {
        throw err;
      });
      command.commands.forEach(walk);
    };
    walk(this.root);
  }
}
