#!/usr/bin/env node
// Launcher: runs the built CLI (dist/, which an installed package ships; in a checkout, `npm run
// build` makes it, and `npm start` and `npm test` run the build first).
import { existsSync, fstatSync, writeSync } from "node:fs";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write(
    "gasdigest: the build output is missing (dist/cli/main.js); run `npm run build` first\n",
  );
  process.exit(1);
}
// stdout can fail under a running command: its reader went away (EPIPE: `gasdigest replay ... |
// head -1`, a log shipper that dies under `gasdigest serve`), or the disk is full (ENOSPC,
// EFBIG). Without this listener the error would be thrown from the stream and kill the process,
// a server included. serve and publish keep serving without their log; replay and simulate see
// the failure on their next write and stop (141 for a closed pipe, else "cannot write the
// output"); a command that wrote everything at once and would exit 0 says so here.
let stdoutError;
// stdout sent to a file (`> out.ndjson`) is written by Node with one writeSync per chunk, and a
// short write is taken as a whole one: a disk that fills, or a file size limit (`ulimit -f`)
// reached, within a chunk lost the rest of it without an error, and a command whose last chunk
// it was exited 0 with its output cut. The rest is written until it is all in or the write
// fails (ENOSPC, EFBIG), which the listener below then sees.
const stdoutFd = process.stdout.fd;
let stdoutIsFile = false;
try {
  stdoutIsFile = typeof stdoutFd === "number" && fstatSync(stdoutFd).isFile();
} catch {
  // fd 1 closed: Node's own stream reports it.
}
if (stdoutIsFile)
  process.stdout._write = (chunk, _encoding, callback) => {
    try {
      for (let at = 0; at < chunk.length; ) {
        const n = writeSync(stdoutFd, chunk, at, chunk.length - at);
        if (n <= 0) throw Object.assign(new Error("EIO: the write wrote nothing"), { code: "EIO" });
        at += n;
      }
    } catch (error) {
      callback(error);
      return;
    }
    callback();
  };
process.stdout.on("error", (error) => {
  stdoutError ??= error;
});
// stderr can go away too (`gasdigest stats ... 2>&1 | head -1`, or `2> >(head -1)`): its lines
// are diagnostics with nowhere else to go, so they are dropped and the command carries on (its
// results still reach stdout, or stdout's own failure decides the exit code).
process.stderr.on("error", () => {});
// serve's and publish's stdout is their log, not their result: a log reader gone is no failure
// of a clean stop (a supervisor would record every such stop as a crash). Their --help is their
// result, as every command's is.
const help = process.argv.slice(3).some((a) => a === "--help" || a === "-h");
const logOnly = (process.argv[2] === "serve" || process.argv[2] === "publish") && !help;
// serve and publish stop on SIGINT/SIGTERM with a drain, from handlers they set when they start.
// A signal that came while Node was still loading the CLI (up to a second or two) found no
// handler: it ended the process by the signal, or, as PID 1 in a container (where a signal
// without a handler is ignored), was lost, and the command went on until killed. Hold it until
// their handlers are set (they set them before their first `await`), then hand it to them; a
// second one meanwhile ends the process as the second one of a drain does.
let early;
const hold = (signal) => {
  if (early === undefined) early = signal;
  else {
    for (const s of ["SIGINT", "SIGTERM"]) process.off(s, hold);
    process.kill(process.pid, signal);
  }
};
if (logOnly) for (const s of ["SIGINT", "SIGTERM"]) process.on(s, hold);
// The other commands end by a stop signal, with no handler of their own. As PID 1 (a container
// run without an init: `docker run ... gasdigest record`), a signal without a handler is
// ignored: Ctrl-C and `docker stop` did nothing until the kill 10 s later, and `simulate --out`
// dropped its temporary file and wrote on, to fail at the end. There, such a signal ends the
// process with 128 + its number, as a shell reports one that killed it; one turn later, so the
// handlers that clean up on it (the temporary file of --out) have run.
if (!logOnly && process.pid === 1)
  for (const s of ["SIGINT", "SIGTERM", "SIGHUP"])
    process.on(s, () => setImmediate(() => process.exit(128 + constants.signals[s])));
const { main, loadCommand } = await import(entry.href);
// The command's own module too is loaded under the hold: main then calls the command before its
// first `await`, and serve and publish set their handlers there.
await loadCommand(process.argv.slice(2));
const running = main(process.argv.slice(2));
for (const s of ["SIGINT", "SIGTERM"]) process.off(s, hold);
if (early !== undefined) process.emit(early, early);
const code = await running;
// A write to a file or pipe that failed reports it on the next turn: let it arrive.
await new Promise((resolve) => setImmediate(resolve));
// Exit 2 (some input lines rejected) is a finished run too: its output was cut all the same.
if (stdoutError !== undefined && !logOnly && (code === 0 || code === 2)) {
  if (stdoutError.code === "EPIPE") process.exitCode = 141;
  else {
    const command = process.argv[2];
    const who = command && !command.startsWith("-") ? `gasdigest ${command}` : "gasdigest";
    process.stderr.write(`${who}: cannot write the output (${stdoutError.message})\n`);
    process.exitCode = 1;
  }
} else process.exitCode = code;
// serve and publish write their log to stdout. A reader that stalls (a blocked log driver, a
// pipeline that stopped reading) would keep the process alive after it stopped, holding log
// lines nobody reads: give them 5 s, then exit. (The other commands' stdout is their product,
// and a slow reader gets all of it.) The timer does not keep the process alive by itself.
if (logOnly) setTimeout(() => process.exit(), 5_000).unref();
