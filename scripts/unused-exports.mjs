#!/usr/bin/env node
// Fails when something in src/ is exported but imported by no other file (tests, benches and
// fixtures count as users): an export nobody imports is dead code or should not be exported.
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const configFile = ts.readConfigFile(path.join(root, 'tsconfig.test.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
const program = ts.createProgram(parsed.fileNames, parsed.options);
const checker = program.getTypeChecker();
const files = program.getSourceFiles().filter((f) => !f.isDeclarationFile && !f.fileName.includes('/node_modules/'));

// Loaded by bin/svc-sync.js (plain JavaScript, outside the program): every export of it is used.
const ENTRIES = [path.join(root, 'src', 'cli', 'main.ts')];

const resolve = (from, spec) => ts.resolveModuleName(spec, from.fileName, parsed.options, ts.sys).resolvedModule?.resolvedFileName;
const used = new Set(); // "file\0name"
const everything = new Set(ENTRIES); // files whose exports are all used (entry points, namespace or dynamic import)
const stars = []; // [from, to]: `export * from` edges
const mark = (file, name) => used.add(`${file}\0${name}`);

for (const sf of files) {
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const target = resolve(sf, node.moduleSpecifier.text);
      if (target) {
        if (ts.isImportDeclaration(node)) {
          const clause = node.importClause;
          if (clause?.name) mark(target, 'default');
          const bindings = clause?.namedBindings;
          if (bindings && ts.isNamespaceImport(bindings)) everything.add(target);
          if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) mark(target, (el.propertyName ?? el.name).text);
          if (!clause) everything.add(target); // a side-effect import
        } else if (node.exportClause && ts.isNamedExports(node.exportClause)) {
          for (const el of node.exportClause.elements) mark(target, (el.propertyName ?? el.name).text);
        } else {
          stars.push([sf.fileName, target]);
        }
      }
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      const target = resolve(sf, node.arguments[0].text);
      if (target) everything.add(target);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

const exportsOf = (sf) => {
  const symbol = checker.getSymbolAtLocation(sf);
  return symbol ? checker.getExportsOfModule(symbol).map((s) => s.getName()) : [];
};
// A name used through `export * from` is used in the file it comes from.
for (let changed = true; changed;) {
  changed = false;
  for (const [from, to] of stars) {
    const target = program.getSourceFile(to);
    if (!target) continue;
    for (const name of exportsOf(target)) {
      const key = `${to}\0${name}`;
      if (!used.has(key) && (used.has(`${from}\0${name}`) || everything.has(from))) {
        used.add(key);
        changed = true;
      }
    }
  }
}

const unused = [];
for (const sf of files) {
  if (!sf.fileName.startsWith(path.join(root, 'src') + path.sep) || everything.has(sf.fileName)) continue;
  for (const name of exportsOf(sf)) if (!used.has(`${sf.fileName}\0${name}`)) unused.push(`${path.relative(root, sf.fileName)}: ${name}`);
}
if (unused.length > 0) {
  console.error(`unused exports (${unused.length}): export them only where another file imports them, or remove them`);
  for (const u of unused) console.error(`  ${u}`);
  process.exit(1);
}
console.log(`unused exports: none (${files.filter((f) => f.fileName.includes('/src/')).length} files in src/)`);
