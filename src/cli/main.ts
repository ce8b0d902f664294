import { createRequire } from "node:module";
import { escapeControls } from "../core/describeValue.js";
import { didYouMean } from "../core/didYouMean.js";
import { BaseError, formatIssues, ValidationError } from "../core/errors.js";
import { type CliIo, OUTPUT_CLOSED_EXIT, OutputClosedError, processIo, UsageError } from "./io.js";

/** What a command's module gives the table: how to run it, and its usage text. */
type Command = {
  run: (argv: string[], io: CliIo) => Promise<number>;
  usage: string;
};

/**
 * The commands, each loaded when it is run: a command's module and what it imports (the HTTP
 * stack, the sources, the backtest) cost 0.2-0.5 s to load, so loading all of them made every
 * run, `--version` and `--help` included, pay for the other six.
 */
const commands: Record<string, { summary: string; load: () => Promise<Command> }> = {
  serve: {
    summary: "serve the estimate over HTTP (default: from the simulated chain)",
    load: async () => (await import("./serve.js")).serveCommand,
  },
  replay: {
    summary: "replay an NDJSON block file, one estimate per block",
    load: async () => (await import("./replay.js")).replayCommand,
  },
  simulate: {
    summary: "write a simulated chain (seeded scenario) as an NDJSON block file",
    load: async () => (await import("./simulate.js")).simulateCommand,
  },
  backtest: {
    summary: "score strategies on a block history: inclusion against overpayment",
    load: async () => (await import("./backtest.js")).backtestCommand,
  },
  stats: {
    summary: "a block history's statistics (fullness, runs, autocorrelation, price ratios)",
    load: async () => (await import("./stats.js")).statsCommand,
  },
  record: {
    summary: "record blocks from a node, a Redis stream or the simulator to an NDJSON file",
    load: async () => (await import("./record.js")).recordCommand,
  },
  publish: {
    summary: "publish blocks from a node (or a file, or the simulator) to a Redis Stream",
    load: async () => (await import("./publish.js")).publishCommand,
  },
};

/** Commands whose module is loaded, by name. */
const loaded = new Map<string, Command>();

async function loadNamed(name: string): Promise<Command> {
  let command = loaded.get(name);
  if (command === undefined) {
    command = await commands[name]!.load();
    loaded.set(name, command);
  }
  return command;
}

/**
 * Load the module of the command `argv` names (`gasdigest help NAME` names NAME), if any, so that
 * `main(argv)` then calls it before its first `await`: serve and publish set their stop-signal
 * handlers before theirs, and the launcher (bin/gasdigest.js) holds a signal that comes while
 * the CLI is loading until they have.
 */
export async function loadCommand(argv: readonly string[]): Promise<void> {
  const name = argv[0] === "help" && argv.length === 2 ? argv[1] : argv[0];
  if (name !== undefined && Object.hasOwn(commands, name)) await loadNamed(name);
}

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `Usage: gasdigest <command> [options]\n\nCommands:\n${lines.join("\n")}\n\nRun "gasdigest <command> --help" for a command's options.`;
}

/**
 * Run the CLI with the given arguments (without `node` and the script); resolves to the exit
 * code. Never calls `process.exit`, so it can be embedded and tested.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  // `gasdigest help serve` is `gasdigest serve --help`; `help` with anything else (a misspelt
  // command, two of them) is the unknown-command error, so a script can tell a typo.
  if (name === "help" && rest.length > 0) {
    if (rest.length === 1 && Object.hasOwn(commands, rest[0]!))
      return main([rest[0]!, "--help"], io);
    return main([rest.join(" ")], io);
  }
  if (!name || name === "--help" || name === "-h" || name === "help") {
    (name ? io.stdout : io.stderr).write(`${usage()}\n`);
    return name ? 0 : 1;
  }
  if (name === "--version" || name === "-v") {
    const pkg = createRequire(import.meta.url)("../../package.json") as { version: string };
    io.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  if (!Object.hasOwn(commands, name)) {
    const guess = didYouMean(name, Object.keys(commands));
    const hint = guess ? ` (did you mean "${guess}"?)` : "";
    io.stderr.write(`gasdigest: unknown command "${escapeControls(name)}"${hint}\n\n${usage()}\n`);
    return 1;
  }
  // No `await` before `run` when the module is loaded (see loadCommand).
  const command = loaded.get(name) ?? (await loadNamed(name));
  try {
    return await command.run(rest, io);
  } catch (e) {
    // The reader of stdout went away (`| head`): stop quietly, as a Unix tool does on SIGPIPE.
    if (e instanceof OutputClosedError) return OUTPUT_CLOSED_EXIT;
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.stderr.write(
        `gasdigest ${name}: ${oneMessage(e as Error)}${flagHint(e, command.usage)}\n\n${command.usage}\n`,
      );
      return 1;
    }
    if (e instanceof ValidationError) {
      io.stderr.write(
        `gasdigest ${name}: ${lines(e.subject)}:\n${lines(formatIssues(e.issues)).replace(/^/gm, "  ")}\n`,
      );
      return 1;
    }
    if (e instanceof BaseError) {
      io.stderr.write(`gasdigest ${name}: ${oneMessage(e)}\n`);
      return 1;
    }
    throw e;
  }
}

/**
 * `text` with no control character but its line breaks (an issue list, one issue a line): an
 * issue can echo what a user or a module handed in, and none of it may move the terminal's cursor.
 */
const lines = (text: string) => text.split("\n").map(escapeControls).join("\n");

/**
 * An error's message (and its details) on one line, every control character escaped, line breaks
 * too: a message echoes flags, paths and what a module threw, and a path holding a newline
 * (`--input $'x\ngasdigest replay: all good'`) must not print a line of its own. The one
 * exception is parseArgs' "argument is ambiguous" (`--seed -1`): three sentences on three lines
 * of Node's own, quoting only the command's own option names, joined with spaces.
 */
function oneMessage(e: Error): string {
  if ((e as { code?: string }).code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE")
    return e.message.split("\n").map(escapeControls).join(" ");
  if (!(e instanceof BaseError)) return escapeControls(e.message);
  const details = e.details ? ` (${escapeControls(e.details)})` : "";
  return `${escapeControls(e.shortMessage)}${details}`;
}

/**
 * " (did you mean --port?)" for an unknown flag close to one the command's usage lists, or to
 * `--help`, which every command takes and no usage lists.
 */
function flagHint(error: unknown, commandUsage: string): string {
  if ((error as { code?: string }).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return "";
  const flag = /'(--?[^'\s]+)'/.exec((error as Error).message)?.[1];
  if (flag === undefined) return "";
  const flags = new Set(commandUsage.match(/--[a-z][a-z0-9-]*/g) ?? []).add("--help");
  const guess = didYouMean(flag, flags);
  return guess && guess !== flag ? ` (did you mean ${guess}?)` : "";
}
