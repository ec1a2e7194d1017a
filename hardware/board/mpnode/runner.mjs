// One MicroPython VM (the official WebAssembly port, npm
// @micropython/micropython-webassembly-pyscript) kept alive for the host's tests and the
// simulator. Requests arrive one JSON object a line on stdin; each answer is one JSON line
// on stdout: {"out": what the code printed, "error": the traceback or null}.
//   {"mount": ROOT, "files": ["hardware/x.py", ...], "at": "/input"}  copy files there
//   {"code": "...", "globals": {"name": value}}      set the globals, then run the code
// Node's stdout carries only the answers; the VM's print() goes into "out".
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { dirname } from "node:path";

const where = process.env.CRIB_MICROPYTHON_MJS || "@micropython/micropython-webassembly-pyscript";
const { loadMicroPython } = await import(where);
const heapsize = parseInt(process.env.CRIB_MICROPYTHON_HEAP || "1048576", 10);
let printed = [];
let partial = "";
const decoder = new TextDecoder();
const collect = (bytes) => { partial += decoder.decode(bytes, { stream: true }); };
const mp = await loadMicroPython({ heapsize, stdout: collect, stderr: collect, linebuffer: false });

function answer(out, error) {
  process.stdout.write(JSON.stringify({ out, error }) + "\n");
}

function mount(root, files, at) {
  for (const rel of files) {
    const dest = at + "/" + rel;
    mp.FS.mkdirTree(dirname(dest));
    mp.FS.writeFile(dest, readFileSync(root + "/" + rel));
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line) continue;
  let req;
  try {
    req = JSON.parse(line);
  } catch (exc) {
    answer("", "bad request: " + exc.message);
    continue;
  }
  partial = "";
  try {
    if (req.mount !== undefined) {
      mount(req.mount, req.files || [], req.at || "/input");
    } else {
      for (const [name, value] of Object.entries(req.globals || {})) {
        mp.globals.set(name, value);
      }
      mp.runPython(req.code);
    }
    answer(partial, null);
  } catch (exc) {
    answer(partial, String(exc && exc.message ? exc.message : exc));
  }
}
