/**
 * The reference of the read benchmarks: a bare hyper-express server (the node's own HTTP
 * server library) answering fixed bytes — what the node answered for each path, captured
 * before the run. Run as a child process: `tsx bench/lib/bareServer.ts <port> <answers.json>`;
 * prints "listening" once it serves.
 */
import { readFileSync } from 'node:fs';
import HyperExpress from 'hyper-express';

export interface CannedAnswer {
  path: string;
  contentType: string;
  body: string;
}

const [port, file] = process.argv.slice(2);
if (port && file) {
  const answers = JSON.parse(readFileSync(file, 'utf8')) as CannedAnswer[];
  const app = new HyperExpress.Server();
  if (answers.length <= 64)
    for (const a of answers) {
      const bytes = Buffer.from(a.body);
      app.get(a.path, (_req, res) => {
        res.type(a.contentType).send(bytes);
      });
    }
  else {
    // Many paths (random accounts): one route and a map, as the node has one route for them — thousands of
    // static routes would make the reference slower than what it measures.
    const byPath = new Map(answers.map((a) => [a.path, { type: a.contentType, bytes: Buffer.from(a.body) }]));
    app.get('/*', (req, res) => {
      const a = byPath.get(req.path);
      if (a) res.type(a.type).send(a.bytes);
      else res.status(404).send('');
    });
  }
  await app.listen(Number(port), '127.0.0.1');
  console.log('listening');
}
