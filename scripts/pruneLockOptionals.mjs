// Run after `npm install` changes package-lock.json: `node scripts/pruneLockOptionals.mjs`.
// The registry reachable here does not serve some platform binaries (Biome's, Deno's and
// workerd's builds for macOS and Windows, ...). npm install leaves them out of the lock but keeps
// them in their parent's optionalDependencies, and npm ci then refuses the lock as out of sync.
// This drops, from every optionalDependencies list in the lock, the packages the lock does not hold.
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
let dropped = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  if (!entry.optionalDependencies) continue;
  for (const dep of Object.keys(entry.optionalDependencies)) {
    const held =
      lock.packages[`node_modules/${dep}`] ?? lock.packages[`${path}/node_modules/${dep}`];
    if (held) continue;
    console.log(`${path || "(root)"}: drop optional ${dep} (not in the lock)`);
    delete entry.optionalDependencies[dep];
    dropped++;
  }
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`${dropped} dropped`);
