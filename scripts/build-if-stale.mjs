// `npm start` and `prepare`: build only what is missing or older than its sources, and never fail a
// production install (`npm ci --omit=dev`) for want of the compilers, which are dev dependencies, nor an
// install before the sources are there (the Dockerfile's dependency layer).
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((max, e) => {
    const path = join(dir, e.name);
    return Math.max(max, e.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }, 0);
const built = (output, sources) => existsSync(output) && statSync(output).mtimeMs >= Math.max(...sources.map(newest));

// No sources yet: a container build installs the dependencies before it copies them in.
if (!existsSync('src')) process.exit(0);
const haveCompilers = existsSync('node_modules/typescript') && existsSync('node_modules/esbuild');
const server = built('dist/cli/main.js', ['src']);
const web = built('web/assets/app.js', ['web/src']);
if (server && web) process.exit(0);
if (!haveCompilers) {
  if (existsSync('dist/cli/main.js') && existsSync('web/assets/app.js')) process.exit(0);
  console.error('expertq: dist/ is missing and the build tools are not installed (a production install?). Build first with: npm ci && npm run build');
  process.exit(process.env.npm_lifecycle_event === 'prepare' ? 0 : 1);
}
execSync(server ? 'npm run -s build:web' : web ? 'npm run -s build:server' : 'npm run -s build', { stdio: 'inherit' });
