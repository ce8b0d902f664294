// The file `gasdigest record` (and `simulate --out`) writes, against what happens to files in
// production: a rotation that truncates it under the writer, the shell's `>>`, a full disk or a
// file size limit, a FIFO.
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openRecordFile } from "../../src/cli/recordFile.js";

const BIN = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
const tmp = () => mkdtempSync(join(tmpdir(), "gasdigest-record-file-"));
const heights = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l).height as string);
/** Run a shell command line (the CLI as `$G`), as a user types it. */
const sh = (line: string, cwd: string) =>
  spawnSync("sh", ["-c", line], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, G: `${process.execPath} ${BIN}` },
  });

describe("the file record writes", () => {
  it("goes on at the file's start after a rotation truncates it (copytruncate): no hole of NUL bytes", async () => {
    const path = join(tmp(), "chain.ndjson");
    writeFileSync(path, "old\n");
    const stream = await openRecordFile(path, { append: false, force: true });
    await new Promise((r) => stream.write("first line\n", r));
    truncateSync(path, 0); // logrotate's copytruncate, while the recorder writes on
    await new Promise((r) => stream.write("second line\n", r));
    await new Promise((r) => stream.end(r));
    expect(readFileSync(path, "utf8")).toBe("second line\n");
  });

  it("through /dev/stdout keeps what the shell's >> appends to, and > needs no --force", () => {
    const dir = tmp();
    sh("$G simulate --blocks 3 --out kept.ndjson", dir);
    expect(heights(join(dir, "kept.ndjson"))).toEqual(["1", "2", "3"]);
    const append = sh("$G simulate --blocks 2 --out /dev/stdout >> kept.ndjson", dir);
    expect(append.status, append.stderr).toBe(0);
    expect(heights(join(dir, "kept.ndjson"))).toEqual(["1", "2", "3", "1", "2"]);
    const rec = sh("$G record --source sim --blocks 2 --out /dev/stdout >> kept.ndjson", dir);
    expect(rec.status, rec.stderr).toBe(0);
    expect(heights(join(dir, "kept.ndjson"))).toHaveLength(7);
    const fresh = sh("$G record --source sim --blocks 2 --out /dev/stdout > new.ndjson", dir);
    expect(fresh.status, fresh.stderr).toBe(0);
    expect(heights(join(dir, "new.ndjson"))).toEqual(["1", "2"]);
  });

  it("after a write error (a file size limit), is cut back to its last whole line and --append continues it", () => {
    const dir = tmp();
    // 64 KiB at most: a few hundred simulated blocks, then EFBIG (node ignores SIGXFSZ).
    const full = sh("ulimit -f 128; $G record --source sim --blocks 5000 --out h.ndjson", dir);
    expect(full.status).toBe(1);
    const kept = heights(join(dir, "h.ndjson"));
    expect(kept.length).toBeGreaterThan(10);
    expect(readFileSync(join(dir, "h.ndjson"), "utf8").endsWith("\n")).toBe(true);
    expect(full.stderr).toContain(
      `h.ndjson is cut back to its last whole line, height ${kept.at(-1)}: --append continues it`,
    );
    expect(full.stderr).not.toContain("Error: ");
    const more = sh("$G record --source sim --blocks 5 --out h.ndjson --append", dir);
    expect(more.status, more.stderr).toBe(0);
    const all = heights(join(dir, "h.ndjson")).map(Number);
    expect(all).toEqual(Array.from({ length: kept.length + 5 }, (_, i) => i + 1));
  });

  it("a write error on the first write of --append never cuts into what the file held", () => {
    // The file's last line lacks its newline, and the file is at the size limit: the run's
    // first write (that newline) fails, and the cut back to the last whole line used to remove
    // the file's own last block.
    const dir = tmp();
    expect(sh("$G simulate --blocks 5 --out h.ndjson", dir).status).toBe(0);
    const text = readFileSync(join(dir, "h.ndjson"), "utf8").trimEnd();
    const padded = `${text.slice(0, -1)}${" ".repeat(8192 - Buffer.byteLength(text))}}`;
    writeFileSync(join(dir, "h.ndjson"), padded);
    const more = sh("ulimit -f 8; $G record --source sim --blocks 3 --out h.ndjson --append", dir);
    expect(more.status).toBe(1);
    expect(more.stderr).toContain("cannot write h.ndjson");
    expect(readFileSync(join(dir, "h.ndjson"), "utf8")).toBe(padded);
    expect(heights(join(dir, "h.ndjson"))).toEqual(["1", "2", "3", "4", "5"]);
  });

  it("--append --out /dev/stdout >> FILE continues FILE, and a write error there cuts it back too", () => {
    // /dev/stdout sent to a file is that file: --append used to be ignored there (heights 1 2 3
    // 1 2 3), and a write error left a torn last line.
    const dir = tmp();
    expect(sh("$G simulate --blocks 3 --out h.ndjson", dir).status).toBe(0);
    const more = sh(
      "$G record --source sim --blocks 2 --append --out /dev/stdout >> h.ndjson",
      dir,
    );
    expect(more.status, more.stderr).toBe(0);
    expect(heights(join(dir, "h.ndjson"))).toEqual(["1", "2", "3", "4", "5"]);
    const full = sh(
      "ulimit -f 64; $G record --source sim --blocks 5000 --append --out /dev/stdout >> h.ndjson",
      dir,
    );
    expect(full.status).toBe(1);
    const kept = heights(join(dir, "h.ndjson"));
    expect(readFileSync(join(dir, "h.ndjson"), "utf8").endsWith("\n")).toBe(true);
    expect(full.stderr).toContain(`is cut back to its last whole line, height ${kept.at(-1)}`);
    expect(kept.map(Number)).toEqual(Array.from({ length: kept.length }, (_, i) => i + 1));
  });

  it("two record --append runs on one file: one stops, saying so; none ends 0 with the heights mixed", () => {
    // Each went on from the same last height, and both ended 0: 19,982 heights written twice
    // over 40,010 lines.
    const dir = tmp();
    expect(sh("$G record --source sim --blocks 10 --out c.ndjson", dir).status).toBe(0);
    const both = sh(
      "$G record --source sim --blocks 20000 --out c.ndjson --append --seed 1 2> a.err & a=$!; " +
        "$G record --source sim --blocks 20000 --out c.ndjson --append --seed 2 2> b.err; b=$?; " +
        'wait $a; echo "$? $b"; cat a.err b.err',
      dir,
    );
    const [a, b] = both.stdout.split("\n")[0]!.split(" ").map(Number);
    expect(both.stdout).toContain("another process writes c.ndjson too; stopped");
    const all = heights(join(dir, "c.ndjson")).map(Number);
    const increasing = all.every((h, i) => i === 0 || h > all[i - 1]!);
    if (!increasing) expect([a, b]).toEqual([1, 1]);
    else expect([a, b].sort()).toEqual([0, 1]);
    // Two runs of up to 20,000 blocks at once: more than 20 s on a loaded 2-core machine.
  }, 120_000);

  it("a rotation that truncates the file under record (copytruncate) is not taken for another writer", () => {
    const dir = tmp();
    const r = sh(
      "$G record --source sim --blocks 30000 --out r.ndjson & pid=$!; " +
        "while [ ! -s r.ndjson ]; do sleep 0.01; done; : > r.ndjson; wait $pid",
      dir,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain("wrote 30000 blocks");
    // 30,000 blocks: about 6 s of CPU, more than 30 s on a loaded 2-core machine.
  }, 120_000);

  // Root replaces any file; a user is asked as the shell's `>` asks. Run as root, the tests use
  // setpriv to be another user (nobody: 65534).
  const asRoot = process.getuid?.() === 0 && spawnSync("setpriv", ["--help"]).status === 0;

  it.skipIf(!asRoot)(
    "simulate --out keeps a replaced file's owner, and refuses a file its user cannot write",
    () => {
      const dir = tmp();
      chmodSync(dir, 0o777);
      /** A file holding `text`, of `uid`:`gid` with `mode`. */
      const file = (name: string, text: string, uid: number, gid: number, mode: number) => {
        const path = join(dir, name);
        writeFileSync(path, text);
        chownSync(path, uid, gid);
        chmodSync(path, mode);
        return path;
      };
      /** `simulate --out NAME` as nobody (65534), with `groups` (none by default). */
      const asNobody = (out: string, groups = "--clear-groups") =>
        sh(
          `setpriv --reuid=65534 --regid=65534 ${groups} $G simulate --blocks 2 --out ${out}`,
          dir,
        );
      // Root writing over nobody's file: the file stays nobody's, as with `>` (it became root's,
      // and its owner could no longer read it).
      const theirs = file("theirs.ndjson", "precious\n", 65534, 65534, 0o600);
      expect(sh("$G simulate --blocks 2 --out theirs.ndjson", dir).status).toBe(0);
      const st = statSync(theirs);
      expect([st.uid, st.gid, st.mode & 0o777]).toEqual([65534, 65534, 0o600]);
      // nobody writing over a read-only file of its own: refused, as `>` refuses (it was replaced).
      const mine = file("mine.ndjson", "precious\n", 65534, 65534, 0o444);
      const readOnly = asNobody("mine.ndjson");
      expect(readOnly.status).toBe(1);
      expect(readOnly.stderr).toMatch(/^gasdigest simulate: cannot write mine\.ndjson \(EACCES/);
      expect(readFileSync(mine, "utf8")).toBe("precious\n");
      // A writable file in a folder that takes no new file: the error says the folder, not the
      // file (it named the file, which nobody could write).
      mkdirSync(join(dir, "locked"), { mode: 0o755 });
      file("locked/w.ndjson", "x\n", 65534, 65534, 0o644);
      const folder = asNobody("locked/w.ndjson");
      expect(folder.status).toBe(1);
      expect(folder.stderr).toContain(
        "cannot write locked/w.ndjson (EACCES: no new file can be made in locked (the output is written beside w.ndjson under a temporary name, then renamed over it))",
      );
      // Another user's file, writable by nobody's group: replaced, it keeps its group (its
      // owner is not nobody's to give), so the group keeps its access.
      const shared = file("shared.ndjson", "x\n", 1234, 1000, 0o664);
      const group = asNobody("shared.ndjson", "--groups=1000");
      expect(group.status, group.stderr).toBe(0);
      expect([statSync(shared).gid, statSync(shared).mode & 0o777]).toEqual([1000, 0o664]);
      // Another user's file in a sticky folder (/tmp): no rename over it is allowed, and `>` may
      // write it; written in place (the run failed at its end, after all its work).
      mkdirSync(join(dir, "sticky"));
      chmodSync(join(dir, "sticky"), 0o1777);
      const rootFile = file("sticky/f.ndjson", "x\n", 0, 0, 0o666);
      const inSticky = asNobody("sticky/f.ndjson");
      expect(inSticky.status, inSticky.stderr).toBe(0);
      expect(heights(rootFile)).toEqual(["1", "2"]);
      expect(statSync(rootFile).uid).toBe(0);
    },
  );

  it("simulate --out writes a name near the folder's 255-byte limit, in any script", () => {
    // 80 CJK characters are 240 bytes: the temporary name beside it, cut by characters, was
    // past the limit, and the error blamed the folder.
    const dir = tmp();
    const name = `${"漢".repeat(80)}.ndjson`;
    const r = sh(`$G simulate --blocks 3 --out ${name}`, dir);
    expect(r.status, r.stderr).toBe(0);
    expect(heights(join(dir, name))).toEqual(["1", "2", "3"]);
  });

  it("--append to a FIFO writes to it instead of waiting to read its last line", async () => {
    const dir = tmp();
    const fifo = join(dir, "fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const reader = spawn("sh", ["-c", `cat ${fifo}`], { stdio: ["ignore", "pipe", "inherit"] });
    let got = "";
    reader.stdout.on("data", (d) => {
      got += String(d);
    });
    const readerDone = new Promise((r) => reader.on("close", r));
    const rec = spawn(
      process.execPath,
      [BIN, "record", "--source", "sim", "--blocks", "3", "--out", fifo, "--append"],
      { stdio: "ignore" },
    );
    const code = await Promise.race([
      new Promise((r) => rec.on("close", r)),
      new Promise((r) => setTimeout(() => r("still running after 15 s"), 15_000)),
    ]);
    if (rec.exitCode === null) rec.kill("SIGKILL");
    if (reader.exitCode === null) reader.kill("SIGKILL");
    expect(code).toBe(0);
    await readerDone;
    expect(got.trim().split("\n")).toHaveLength(3);
  }, 30_000);
});
