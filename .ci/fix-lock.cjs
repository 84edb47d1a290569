// Adds lock entries for platform-only optional bindings the registry here does not serve,
// tagged with os/cpu so npm ci skips them on this platform.
const fs = require('fs');
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
const pk = lock.packages;
const parent = pk['node_modules/unrs-resolver'];
const osMap = { android: 'android', darwin: 'darwin', freebsd: 'freebsd', linux: 'linux', openharmony: 'openharmony', win32: 'win32' };
const cpuMap = { 'arm-eabi': 'arm', arm64: 'arm64', x64: 'x64', arm: 'arm', loong64: 'loong64', ppc64: 'ppc64', riscv64: 'riscv64', s390x: 's390x', ia32: 'ia32' };
let added = 0;
for (const [name, version] of Object.entries(parent.optionalDependencies)) {
  const key = 'node_modules/' + name;
  if (pk[key]) continue;
  const rest = name.replace('@unrs/resolver-binding-', '').split('-');
  const os = osMap[rest[0]];
  const cpu = cpuMap[rest[1] === 'arm' && rest[2] === 'eabi' ? 'arm-eabi' : rest[1]];
  if (!os || !cpu) throw new Error('cannot infer platform of ' + name);
  pk[key] = { version, cpu: [cpu], dev: true, license: 'MIT', optional: true, os: [os] };
  added++;
}
const sorted = {};
for (const k of Object.keys(pk).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0))) sorted[k] = pk[k];
lock.packages = sorted;
fs.writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n');
console.log('added', added);
