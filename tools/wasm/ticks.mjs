// Runs tools/mp/table_ticks.py on the 32-bit webassembly port under Node, one call per step:
//   node ticks.mjs PACKAGE_DIR HEAP IMAGE STATE SCRIPT [ARG...]   (ARG "free": below)
// HEAP: the VM's first heap area in bytes; IMAGE: a ROMFS image, given to the VM as a board's
// ROMFS partition (outside the heap, mounted at /rom); STATE: a folder whose files are copied
// into the VM's /state (the table's configuration file).  The script sees its arguments as the
// global ARGV.  Then step() is called until it returns 0: between two calls the VM collects
// the garbage (this port collects only between calls from JavaScript).  The argument "free" prints
// instead the free heap a fresh VM of HEAP has where a script starts.
import fs from "fs";
import path from "path";
import { pathToFileURL } from "url";

const [pkg, heap, image, state, script, ...args] = process.argv.slice(2);
const entry = path.join(pkg, "node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs");
const { loadMicroPython } = await import(pathToFileURL(entry).href);
const mp = await loadMicroPython({
  heapsize: parseInt(heap, 10),
  romfs: fs.readFileSync(image),
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});

try {
  mp.runPython("import gc");
  if (args[0] === "free") {
    mp.runPython("print('free', gc.mem_free())");
    process.exit(0);
  }
  mp.FS.mkdir("/state");
  for (const name of fs.readdirSync(state)) {
    mp.FS.writeFile("/state/" + name, fs.readFileSync(path.join(state, name)));
  }
  mp.runPython("ARGV = " + JSON.stringify(args));
  mp.runPython(fs.readFileSync(script, "utf8"));
  const step = mp.globals.get("step");
  while (step()) {
    // the VM collects its garbage here, between two calls
  }
} catch (error) {
  process.stderr.write(String(error.message || error).split("\n").slice(-4).join("\n") + "\n");
  process.exit(1);
}
