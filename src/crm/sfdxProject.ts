/**
 * Puts the schema's SFDX source on disk: bare source (`schema --out`), or a complete project
 * (`schema --project`) that `sf project deploy start` deploys as it is. Every file is written to
 * a staging folder first and moved into place only when all were written, so a failure leaves
 * nothing half-written; files that are not ours are never touched.
 */
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../model/errors.js';
import { SCHEMAS } from '../mapping/schema.js';
import { ASSIGN_PERMISSION_SET, PERMISSION_SET } from './permissionSet.js';
import { schemaSource, type ProjectionModel, type SourceFile } from './schemaExport.js';
import { LOG_SCHEMAS } from './syncLogSchema.js';

const PROJECT_FILE = 'sfdx-project.json';
/** The `name` in sfdx-project.json that marks a project this command wrote (and may update). */
const PROJECT_NAME = 'svc-sync';
const DEFAULT_PACKAGE_DIR = 'force-app';
const SOURCE_SUBDIR = 'main/default';

export interface WrittenSource {
  /** The folder given on the command line. */
  dir: string;
  /** Where objects/ and permissionsets/ are. */
  sourceDir: string;
  /** Every file written, under `dir` (with --project, sfdx-project.json first). */
  files: string[];
  objects: string[];
  permissionSet: string;
  /** --project only: the project file and its sourceApiVersion. */
  projectFile?: string;
  apiVersion?: string;
  /** The commands, in order, that deploy what was written and give the connecting user its fields. */
  next: string[];
}

interface PackageDirectory {
  path: string;
  default?: boolean;
}

type ProjectJson = Record<string, unknown> & { name?: unknown; packageDirectories?: unknown };

const errCode = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));

async function entries(dir: string, flag: string): Promise<string[] | undefined> {
  let st;
  try {
    st = await stat(dir);
  } catch (err) {
    if (errCode(err) === 'ENOENT') return undefined;
    throw new ConfigError(`${flag} ${dir}: cannot be read (${errCode(err)})`);
  }
  if (!st.isDirectory()) throw new ConfigError(`${flag} ${dir}: is a file, not a folder`);
  return readdir(dir);
}

/**
 * Writes `files` (paths relative to `dir`) into `dir`, creating it if needed; all or nothing.
 * Files it replaces are kept aside until every new file is in place, and put back on failure.
 */
async function writeAll(dir: string, files: SourceFile[], flag: string, existed: boolean): Promise<string[]> {
  let staging: string | undefined;
  const at = (root: string, rel: string): string => path.join(root, ...rel.split('/'));
  const moved: Array<{ to: string; backup?: string; createdDir?: string | undefined }> = [];
  try {
    await mkdir(dir, { recursive: true });
    // Inside the target, so the moves below are renames on one file system.
    staging = await mkdtemp(path.join(dir, '.svc-sync-staging-'));
    for (const f of files) {
      await mkdir(path.dirname(at(staging, `new/${f.path}`)), { recursive: true });
      await writeFile(at(staging, `new/${f.path}`), f.content, 'utf8');
    }
    for (const f of files) {
      const to = at(dir, f.path);
      const step: { to: string; backup?: string; createdDir?: string | undefined } = { to };
      step.createdDir = await mkdir(path.dirname(to), { recursive: true });
      moved.push(step);
      if ((await stat(to).catch(() => undefined))?.isFile()) {
        step.backup = at(staging, `old/${f.path}`);
        await mkdir(path.dirname(step.backup), { recursive: true });
        await rename(to, step.backup);
      }
      await rename(at(staging, `new/${f.path}`), to);
    }
  } catch (err) {
    for (const step of moved.reverse()) {
      if (step.backup) await rename(step.backup, step.to).catch(() => undefined);
      else await rm(step.to, { force: true }).catch(() => undefined);
      if (step.createdDir) await rm(step.createdDir, { recursive: true, force: true });
    }
    if (staging) await rm(staging, { recursive: true, force: true });
    if (!existed) await rm(dir, { recursive: true, force: true });
    throw new ConfigError(`${flag} ${dir}: cannot write there (${errCode(err)})`);
  }
  await rm(staging, { recursive: true, force: true });
  return files.map((f) => at(dir, f.path));
}

function describeWritten(dir: string, sourceDir: string, files: string[], next: string[]): WrittenSource {
  return { dir, sourceDir, files, objects: [...SCHEMAS, ...LOG_SCHEMAS].map((s) => s.apiName), permissionSet: PERMISSION_SET, next };
}

/** `schema --out DIR`: bare source (objects/, permissionsets/) into a package directory, e.g. force-app/main/default. */
export async function exportSource(outDir: string, projection?: ProjectionModel): Promise<WrittenSource> {
  const existing = await entries(outDir, '--out');
  const files = await writeAll(outDir, schemaSource(projection), '--out', existing !== undefined);
  return describeWritten(outDir, outDir, files, ['sf project deploy start', ASSIGN_PERMISSION_SET]);
}

function defaultPackageDir(project: ProjectJson): string {
  const dirs = Array.isArray(project.packageDirectories) ? (project.packageDirectories as PackageDirectory[]).filter((d) => typeof d?.path === 'string') : [];
  return (dirs.find((d) => d.default) ?? dirs[0])?.path ?? DEFAULT_PACKAGE_DIR;
}

/** What is at `dir`: nothing, an empty folder, or a project this command wrote; refuses anything else. */
async function projectTarget(dir: string): Promise<{ existed: boolean; project?: ProjectJson }> {
  const names = await entries(dir, '--project');
  if (!names || names.length === 0) return { existed: names !== undefined };
  if (!names.includes(PROJECT_FILE)) {
    throw new ConfigError(`--project ${dir}: the folder is not empty and holds no ${PROJECT_FILE}; give a new or empty folder`, ['svc-sync schema --project svc-org']);
  }
  let project: ProjectJson;
  try {
    project = JSON.parse(await readFile(path.join(dir, PROJECT_FILE), 'utf8')) as ProjectJson;
  } catch (err) {
    throw new ConfigError(`--project ${dir}: ${PROJECT_FILE} cannot be read (${err instanceof SyntaxError ? 'not valid JSON' : errCode(err)})`);
  }
  if (typeof project !== 'object' || project === null || project.name !== PROJECT_NAME) {
    const source = path.join(dir, defaultPackageDir(project ?? {}), SOURCE_SUBDIR);
    throw new ConfigError(`--project ${dir}: holds an SFDX project svc-sync did not write; add the source to it with --out ${source}, or give a new folder`, [`svc-sync schema --out ${source}`]);
  }
  return { existed: true, project };
}

/**
 * `schema --project DIR`: sfdx-project.json (sourceApiVersion = the configured API version) and
 * the source under its default package directory. A project this command wrote before is
 * updated in place: its other settings and any other files in it are kept.
 */
export async function exportProject(dir: string, apiVersion: string, projection?: ProjectionModel): Promise<WrittenSource> {
  const { existed, project: existing } = await projectTarget(dir);
  const packageDir = existing ? defaultPackageDir(existing) : DEFAULT_PACKAGE_DIR;
  const inside = path.normalize(packageDir);
  if (path.isAbsolute(inside) || inside === '..' || inside.startsWith(`..${path.sep}`)) {
    throw new ConfigError(`--project ${dir}: the default package directory ${JSON.stringify(packageDir)} in ${PROJECT_FILE} is outside the project`);
  }
  const project: ProjectJson = {
    packageDirectories: [{ path: DEFAULT_PACKAGE_DIR, default: true }],
    name: PROJECT_NAME,
    namespace: '',
    sfdcLoginUrl: 'https://login.salesforce.com',
    ...existing,
    sourceApiVersion: apiVersion,
  };
  const prefix = `${packageDir.replace(/\\/g, '/').replace(/\/+$/, '')}/${SOURCE_SUBDIR}`;
  const files: SourceFile[] = [{ path: PROJECT_FILE, content: `${JSON.stringify(project, null, 2)}\n` }, ...schemaSource(projection).map((f) => ({ path: `${prefix}/${f.path}`, content: f.content }))];
  const written = await writeAll(dir, files, '--project', existed);
  const next = [`cd ${/^[\w./@%+=:,-]+$/.test(dir) ? dir : `'${dir.replace(/'/g, `'\\''`)}'`}`, 'sf project deploy start', ASSIGN_PERMISSION_SET];
  return { ...describeWritten(dir, path.join(dir, ...prefix.split('/')), written, next), projectFile: written[0], apiVersion };
}
