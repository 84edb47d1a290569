#!/usr/bin/env node
// The first step of `npm run demo`, `stack`, `test` and `build`: on a Node older than package.json's
// `engines` floor, one line naming what is needed and how to get it without root, exit 2, before
// anything is built. Plain CommonJS with no newer syntax, so that even an old Node runs it.
'use strict';
const fs = require('fs');
const path = require('path');

const engines = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')).engines.node;
const floor = /^>=(\d+)\.(\d+)$/.exec(engines);
const have = process.versions.node.split('.').map(Number);
if (floor && (have[0] < +floor[1] || (have[0] === +floor[1] && have[1] < +floor[2]))) {
  process.stderr.write(
    `svc-sync needs Node.js ${floor[1]}.${floor[2]}+ (this is ${process.versions.node}): without root, ` + `export PATH="$(bash scripts/node-from-registry.sh ${floor[1]}):$PATH" and run it again\n`,
  );
  process.exit(2);
}
