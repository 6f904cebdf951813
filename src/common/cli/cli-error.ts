/**
 * A one-line failure reason for the CLI (printed on stderr, exit 1). Its own file, free of
 * nest-commander, so the work behind a command (e.g. imports/commands/import-file.ts) can be tested
 * in-process.
 */
export class CliError extends Error {}
