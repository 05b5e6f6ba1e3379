// A small static file server for loopback: used by scripts/serve.sh and by the browser tests.
//
//   node scripts/static-server.mjs [--root DIR] [--host 127.0.0.1] [--port 8000]
//
// As a module: `const srv = await startStaticServer({ root }); srv.url; await srv.close();`
// Port 0 (the default for the module) asks the OS for a free port.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

export function startStaticServer({ root, host = '127.0.0.1', port = 0, log = false } = {}) {
  const base = path.resolve(root);
  const server = http.createServer((req, res) => {
    let status = 200;
    try {
      const url = new URL(req.url, 'http://localhost');
      let file = path.join(base, decodeURIComponent(url.pathname));
      if (file !== base && !file.startsWith(base + path.sep)) {
        status = 403;
      } else {
        if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
        if (!fs.existsSync(file) || !fs.statSync(file).isFile()) status = 404;
      }
      if (status !== 200 || (req.method !== 'GET' && req.method !== 'HEAD')) {
        if (status === 200) status = 405;
        res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`${status}\n`);
      } else {
        const type = TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream';
        res.writeHead(200, {
          'content-type': type,
          'content-length': fs.statSync(file).size,
          'cache-control': 'no-store',
        });
        if (req.method === 'HEAD') res.end();
        else fs.createReadStream(file).pipe(res);
      }
    } catch (err) {
      status = 500;
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`500 ${err.message}\n`);
    }
    if (log) console.log(`${status} ${req.method} ${req.url}`);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const addr = server.address();
      resolve({
        server,
        port: addr.port,
        url: `http://${host}:${addr.port}/`,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
  };
  const root = opt('root', '.');
  const host = opt('host', '127.0.0.1');
  const port = Number(opt('port', '8000'));
  startStaticServer({ root, host, port, log: args.includes('--log') }).then(
    (srv) => {
      console.log(`Serving ${path.resolve(root)}`);
      console.log(`Open ${srv.url}   (Ctrl-C to stop)`);
      const stop = () => srv.close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err) => {
      console.error(err.code === 'EADDRINUSE' ? `port ${port} is in use: pass --port N (or --port 0 for any free port)` : err.message);
      process.exit(1);
    },
  );
}
