// What a module's CLI command may import: the shapes of a command, never the container. cli.ts (the
// composition level, like main.ts) builds the container and hands each command only the deps it declares,
// as http/app.ts does for route plugins. test/architecture/module-boundaries.test.ts checks that no file
// under src/modules or src/outbox reaches container.ts through its imports.

export type Out = { stdout: (s: string) => void; stderr: (s: string) => void };
export type Env = Record<string, string | undefined>;
/** A command as the CLI dispatches it: its arguments after the command name, exit code back. */
export type CliCommand = (argv: string[], out: Out, env: Env) => Promise<number>;

/**
 * A module's container-backed command: the deps it uses (`D`, narrowed like a route plugin's), its usage
 * text, and its body. The runner loads the configuration, builds the container, picks `D` from it, runs
 * `run`, prints its result as JSON (unless `print` is false) and maps errors to exit codes.
 */
export interface ModuleCommand<D> {
  usage: string;
  /** Checked before anything is built: a message here is a usage error (exit 2) even without a database. */
  precheck?: (argv: string[]) => string | undefined;
  /** False when the command writes its own output (a file, a stream, a long-running process). */
  print?: boolean;
  /** True for a service process (the worker) that, like `npm start`, may make the SQLite database it does not find. */
  createsDatabase?: boolean;
  run: (deps: D, argv: string[], out: Out) => Promise<unknown>;
  /**
   * The exit code of a run that returned (its result is printed first); 0 when absent. For a command whose
   * answer can be "done, and it did not work" (`webhook test` whose receiver refused the event), so a
   * script reading `$?` does not take it for success.
   */
  exitCode?: (argv: string[], result: unknown) => number;
}
