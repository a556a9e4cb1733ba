// Runs a MicroPython script on the 32-bit webassembly port under Node:
//   node run.mjs PACKAGE_DIR TREE SCRIPT [ARG...]
// TREE (a folder of .mpy files) is copied into the VM's /lib, an empty /state folder is made,
// and the script sees its arguments as the global ARGV (this port's sys.argv is empty).
import fs from "fs";
import path from "path";
import { pathToFileURL } from "url";

const [pkg, tree, script, ...args] = process.argv.slice(2);
const entry = path.join(pkg, "node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs");
const { loadMicroPython } = await import(pathToFileURL(entry).href);
const mp = await loadMicroPython({
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});

function copyTree(from, to) {
  mp.FS.mkdir(to);
  for (const name of fs.readdirSync(from)) {
    const source = path.join(from, name);
    if (fs.statSync(source).isDirectory()) copyTree(source, to + "/" + name);
    else mp.FS.writeFile(to + "/" + name, fs.readFileSync(source));
  }
}

copyTree(tree, "/lib");
mp.FS.mkdir("/state");
try {
  mp.runPython("import sys\nsys.path.insert(0, '/lib')\nARGV = " + JSON.stringify(args));
  mp.runPython(fs.readFileSync(script, "utf8"));
} catch (error) {
  process.stderr.write(String(error.message || error).split("\n").slice(-4).join("\n") + "\n");
  process.exit(1);
}
