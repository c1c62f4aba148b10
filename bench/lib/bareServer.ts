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
  for (const a of answers) {
    const bytes = Buffer.from(a.body);
    app.get(a.path, (_req, res) => {
      res.type(a.contentType).send(bytes);
    });
  }
  await app.listen(Number(port), '127.0.0.1');
  console.log('listening');
}
