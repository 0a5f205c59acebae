#!/usr/bin/env node
// Thin wrapper around the pinned npm build of kaitai-struct-compiler (see package.json).
//
// The npm compiler has no command line, only a JS API:
//     compile(lang, ksyObject, importer, debug) -> Promise<{fileName: source}>
// This script loads each .ksy with js-yaml, resolves `imports:` relative to the .ksy that
// names them (absolute imports against formats/ itself), and writes the generated sources.
//
// Usage: node compile.js --lang python --out DIR file.ksy [file.ksy ...]
// Prints one JSON object {"<file.ksy>": ["<output file>", ...]} on stdout; on any error it
// prints "compile.js: <file>: <message>" on stderr and exits 1.  Called by generate.py;
// nothing else should need to run it.
"use strict";

const fs = require("fs");
const path = require("path");
const yaml = require("js-yaml");
const compiler = require("kaitai-struct-compiler");

function usage(msg) {
  process.stderr.write(`compile.js: ${msg}\nusage: node compile.js --lang python --out DIR file.ksy...\n`);
  process.exit(2);
}

function loadKsy(file) {
  const text = fs.readFileSync(file, "utf8");
  // CORE_SCHEMA (YAML 1.2 core): hex integers, no timestamps/binary surprises.
  return yaml.load(text, { filename: file, schema: yaml.CORE_SCHEMA });
}

function makeImporter(baseDir) {
  return {
    importYaml(name, mode) {
      // mode "rel": `imports: [foo]` or `[../x/foo]` relative to the importing .ksy;
      // mode "abs": `imports: [/foo]`, resolved against formats/ (this directory).
      const root = mode === "abs" ? __dirname : baseDir;
      const clean = name.replace(/^\/+/, "");
      const file = path.resolve(root, clean + ".ksy");
      try {
        return Promise.resolve(loadKsy(file));
      } catch (e) {
        return Promise.reject(new Error(`cannot import ${name} (${mode}) as ${file}: ${e.message}`));
      }
    },
  };
}

async function main() {
  const args = process.argv.slice(2);
  let lang = "python";
  let out = null;
  const files = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--lang") lang = args[++i];
    else if (args[i] === "--out") out = args[++i];
    else if (args[i].startsWith("--")) usage(`unknown option ${args[i]}`);
    else files.push(args[i]);
  }
  if (!out) usage("--out is required");
  if (files.length === 0) usage("no .ksy files given");
  fs.mkdirSync(out, { recursive: true });

  const result = {};
  const written = new Map(); // output name -> source, to catch inconsistent duplicates
  for (const file of files) {
    let outputs;
    try {
      const ksy = loadKsy(file);
      outputs = await compiler.compile(lang, ksy, makeImporter(path.dirname(path.resolve(file))), false);
    } catch (e) {
      const msg = e && (e.message || (e.toString && e.toString())) || String(e);
      process.stderr.write(`compile.js: ${file}: ${msg}\n`);
      process.exit(1);
    }
    result[file] = [];
    for (const [name, source] of Object.entries(outputs)) {
      // An imported spec is emitted again with each importer; all copies must agree.
      if (written.has(name)) {
        if (written.get(name) !== source) {
          process.stderr.write(`compile.js: ${file}: output ${name} differs from an earlier compile of it\n`);
          process.exit(1);
        }
        continue;
      }
      written.set(name, source);
      fs.writeFileSync(path.join(out, name), source);
      result[file].push(name);
    }
  }
  process.stdout.write(JSON.stringify({ compiler: compiler.version, files: result }) + "\n");
}

main();
