import { createWriteStream, fchmodSync, fchownSync, fstatSync, unlinkSync } from "node:fs";
import { access, constants, lstat, open, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Writable } from "node:stream";
import { BaseError } from "../core/errors.js";
import { readerGone, UsageError } from "./io.js";

/** A file a command writes whole or not at all; see {@link openOutputFile}. */
export interface OutputFile {
  /** Where to write. */
  readonly stream: Writable;
  /** End the stream, wait for every byte, and give the file its name (rejects on a write error). */
  commit(): Promise<void>;
  /** Drop what was written: the requested name is left as it was. */
  abort(): Promise<void>;
}

/**
 * The value of a flag that names a file (`--input`, `--out`, `--report`, `--config`,
 * `--compare`): a usage error when it is empty (`--out ""`, an unset shell variable), which
 * would otherwise mean "no file" and silently send the output elsewhere or run with the default
 * settings, and when it is `-`, which Unix tools read as stdin or stdout and which would
 * otherwise be a file of that name.
 *
 * @example
 * const path = fileFlag("out", values.out); // undefined when the flag is absent
 */
export function fileFlag(flag: string, value: string | undefined): string | undefined {
  if (value === "") throw new UsageError(`--${flag} must name a file (got an empty value)`);
  if (value === "-") {
    const stream = flag === "out" || flag === "report" ? "stdout" : "stdin";
    throw new UsageError(
      `--${flag} - names no file: "-" is not read as ${stream} here; name /dev/${stream} to mean it`,
    );
  }
  return value;
}

/**
 * {@link fileFlag} for a flag the command cannot run without: missing or empty, it is the usage
 * error "--input FILE.ndjson is required".
 *
 * @example
 * const input = requiredFileFlag("input", values.input, "FILE.ndjson");
 */
export function requiredFileFlag(flag: string, value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`--${flag} ${what} is required`);
  return fileFlag(flag, value)!;
}

/** The paths of the process's own descriptors: what the shell opened is written as it is. */
const DESCRIPTOR_PATH = /^\/(?:dev\/(?:stdout|stderr|fd\/\d+)|proc\/(?:self|\d+)\/fd\/\d+)$/;

/**
 * Whether `path` is written in place, appended to and never emptied: a descriptor the shell
 * opened (`/dev/stdout`, whatever it points to: `>` and `>>` are the shell's to choose, and
 * opening it again with truncation would empty the file `>>` appends to), a device or a FIFO.
 *
 * @example
 * await writtenInPlace("/dev/stdout"); // true
 */
export async function writtenInPlace(path: string): Promise<boolean> {
  if (DESCRIPTOR_PATH.test(path)) return true;
  const existing = await stat(path).catch(() => undefined);
  return existing !== undefined && !existing.isFile() && !existing.isDirectory();
}

/**
 * How `path` is written: a regular file named directly (or a new one) is replaced whole, under a
 * temporary name beside it (`mode`: the permissions to keep, when it exists); anything else is
 * written in place: a device or FIFO (`/dev/stdout`, `/dev/full`), a symbolic link, which is
 * written through like the shell's `>` does, and another user's file in a sticky folder. Renaming over a link would replace the link itself:
 * `--out /dev/stdout` with stdout sent to a file would swap the system's `/dev/stdout` (a link
 * to `/proc/self/fd/1`) for a plain file and leave the output nowhere it was sent.
 */
async function writeMode(
  path: string,
): Promise<{ inPlace: true } | { inPlace: false; old: OldFile | undefined }> {
  const link = await lstat(path).catch(notThere(path));
  if (link === undefined) return { inPlace: false, old: undefined };
  if (!link.isFile()) return { inPlace: true };
  // Another user's file in a sticky folder (/tmp) cannot be renamed over, though `>` may write
  // it: written in place, as `>` does (the rename failed at the end of the whole run).
  const uid = process.getuid?.();
  if (uid !== undefined && uid !== 0 && link.uid !== uid) {
    const folder = await stat(dirname(path)).catch(() => undefined);
    if (folder !== undefined && (folder.mode & 0o1000) !== 0) return { inPlace: true };
  }
  return { inPlace: false, old: { mode: link.mode & 0o7777, uid: link.uid, gid: link.gid } };
}

/**
 * A `stat` of the output's name that finds no file gives `undefined`; any other failure is the
 * name's (`ENAMETOOLONG`: longer than its folder takes), said before the run rather than when
 * its temporary file, whose name is cut to fit, is renamed at the end.
 */
function notThere(path: string): (e: NodeJS.ErrnoException) => undefined {
  return (e) => {
    if (e.code === "ENOENT") return undefined;
    throw new BaseError(`cannot write ${path}`, { details: e.message, cause: e });
  };
}

/** What the replaced file's successor keeps of it: its permissions and its owner. */
interface OldFile {
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

/**
 * Check early, before a long run, that `path` can be written: not a directory, not one of the
 * files the run reads (`inputs`: through a link too), and, when it is replaced whole, its
 * directory takes a new file (one is made beside it and removed). The file itself is not
 * created.
 *
 * @throws {BaseError} `cannot write PATH` with the reason.
 */
export async function checkOutputPath(path: string, inputs: readonly string[] = []): Promise<void> {
  const fail = (details: string, cause?: unknown) => {
    throw new BaseError(`cannot write ${path}`, { details, cause });
  };
  const existing = await stat(path).catch(notThere(path));
  if (existing?.isDirectory()) fail("it is a directory");
  // Writing over a file the run reads would replace it (a history lost to its own report).
  if (existing?.isFile())
    for (const input of inputs) {
      const read = await stat(input).catch(() => undefined);
      if (read && read.dev === existing.dev && read.ino === existing.ino)
        fail(`it is ${input}, a file this run reads; name another file`);
    }
  try {
    await access(existing ? path : dirname(path), constants.W_OK);
    // A regular file (or a new one) is written under a temporary name beside it: make and drop
    // one now, as the write will (a directory can pass the access check and refuse new files,
    // as /proc does).
    if (!(await writeMode(path)).inPlace) {
      const probe = join(dirname(path), `.${basename(path)}.${process.pid}.check`);
      await (await open(probe, "wx")).close();
      await unlink(probe);
    }
  } catch (e) {
    fail((e as Error).message, e);
  }
}

/**
 * Open `path` to be written whole or not at all: a regular file (or a new one) is written under
 * a temporary name beside it and renamed by `commit()`, keeping the old file's permissions, so a
 * run that fails (a full disk, a broken pipe, an error) never leaves a cut file under the
 * requested name; a device, a FIFO (`/dev/stdout`, `/dev/full`) or a symbolic link is written
 * in place, through the link.
 *
 * @throws {BaseError} `cannot write PATH` when it cannot be opened.
 * @example
 * const file = await openOutputFile("chain.ndjson");
 * try { file.stream.write(text); await file.commit(); } catch (e) { await file.abort(); throw e; }
 */
export async function openOutputFile(path: string): Promise<OutputFile> {
  const how = await writeMode(path);
  const inPlace = how.inPlace;
  // A file the shell's `>` could not write is not replaced either (a rename needs only the
  // folder's permission: a read-only file was replaced).
  if (!how.inPlace && how.old !== undefined)
    await access(path, constants.W_OK).catch((e: Error) => {
      throw new BaseError(`cannot write ${path}`, { details: e.message, cause: e });
    });
  const target = inPlace
    ? path
    : join(dirname(path), `.${headBytes(basename(path), 180)}.${process.pid}.${Date.now()}.tmp`);
  // In place: appended to when it is the shell's descriptor, a device or a FIFO (`>>` kept);
  // emptied when it is a link to a file, as `>` through the link does.
  const flags = inPlace ? ((await writtenInPlace(path)) ? "a" : "w") : "wx";
  const stream = createWriteStream(target, { flags });
  await new Promise<void>((resolve, reject) => {
    stream.once("open", () => resolve());
    // Named by the path asked for; a temporary file that cannot be made says where.
    stream.once("error", (e: NodeJS.ErrnoException) =>
      reject(
        new BaseError(`cannot write ${path}`, {
          details: NO_NEW_FILE.includes(e.code ?? "")
            ? `${e.code}: no new file can be made in ${dirname(path)} (the output is written beside ${basename(path)} under a temporary name, then renamed over it)`
            : e.message.replaceAll(target, path),
          cause: e,
        }),
      ),
    );
  });
  // A write that fails later (a full disk) destroys the stream: writers and commit() read the
  // error from it. Without a listener it would be thrown as an uncaught exception.
  stream.on("error", () => undefined);
  // Interrupted (Ctrl-C), the temporary file goes too: a run stopped while it wrote 25 MB left
  // it beside the file, a hidden `.NAME.PID.TIME.tmp`, one more per run.
  const release = inPlace ? () => undefined : removeOnSignal(target);
  let done = false;
  return {
    stream,
    async commit() {
      // The old file's owner and permissions, given by the descriptor (a name in a folder others
      // may write to can be swapped for a link before it is renamed).
      if (stream.errored) throw stream.errored;
      if (!how.inPlace && how.old !== undefined) keepOwnerAndMode(stream, how.old);
      await new Promise<void>((resolve, reject) => {
        if (stream.errored) return reject(stream.errored);
        stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
      });
      if (!how.inPlace) await rename(target, path);
      done = true;
      release();
    },
    async abort() {
      if (done) return;
      done = true;
      release();
      stream.destroy();
      if (!inPlace) await unlink(target).catch(() => undefined);
    },
  };
}

/** The descriptor a file stream writes to, once open (`undefined` before, or once closed). */
export function descriptorOf(stream: Writable): number | undefined {
  const fd = (stream as Writable & { fd?: number | null }).fd;
  return typeof fd === "number" ? fd : undefined;
}

/** Why a folder takes no new file (the temporary one beside the output). */
const NO_NEW_FILE = ["EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT"];

/**
 * The longest start of `name` that fits in `max` bytes of UTF-8, cut between characters: a
 * temporary name beside a file whose name is near the folder's limit of 255 bytes (in any
 * script: a CJK character is 3 bytes) still has room for its suffix.
 */
function headBytes(name: string, max: number): string {
  let bytes = 0;
  let end = 0;
  for (const c of name) {
    bytes += Buffer.byteLength(c);
    if (bytes > max) break;
    end += c.length;
  }
  return name.slice(0, end);
}

/**
 * Give the temporary file behind `stream` the replaced file's owner, as far as this process may
 * (root gives both; a member of the old group gives the group), and its permissions.
 */
function keepOwnerAndMode(stream: Writable, old: OldFile): void {
  const fd = descriptorOf(stream);
  if (fd === undefined) return;
  const now = fstatSync(fd);
  if (now.uid !== old.uid || now.gid !== old.gid) {
    try {
      fchownSync(fd, old.uid, old.gid);
    } catch {
      try {
        if (now.gid !== old.gid) fchownSync(fd, -1, old.gid);
      } catch {
        // Neither is this process's to give: the file is its own, as a new file is.
      }
    }
  }
  fchmodSync(fd, old.mode);
}

/**
 * Write `text` to `path` whole or not at all ({@link openOutputFile}).
 *
 * @throws {BaseError} `cannot write PATH` with the reason.
 */
export async function writeOutputFile(path: string, text: string): Promise<void> {
  const file = await openOutputFile(path);
  try {
    await new Promise<void>((resolve, reject) =>
      file.stream.write(text, (e) => (e ? reject(e) : resolve())),
    );
    await file.commit();
  } catch (e) {
    await file.abort();
    // Its reader went away (`--report /dev/stdout | head`): stop as a Unix tool does (141).
    throw (
      readerGone(e) ??
      new BaseError(`cannot write ${path}`, { details: (e as Error).message, cause: e })
    );
  }
}

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Until the returned function is called, a stop signal removes the file at `path` (a temporary
 * one) and then takes its usual course: raised again with no listener left, the process ends by
 * it (the shell sees 130 for Ctrl-C), unless the application listens to it itself.
 */
function removeOnSignal(path: string): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    release();
    try {
      unlinkSync(path);
    } catch {
      // gone already
    }
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const release = () => {
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  return release;
}
