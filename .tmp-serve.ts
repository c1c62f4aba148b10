import pino from 'pino';
import HyperExpress from 'hyper-express';
import { createHttpServer } from './src/http/server';
const mode = process.argv[2]; const port = Number(process.argv[3]);
const head = { height: 1, finalizedHeight: 1 };
const reader = { head, status: async () => ({ chainId: 72020, height: 1, finalizedHeight: 1 }) };
if (mode === 'bare') {
  const app = new HyperExpress.Server();
  app.get('/status', async (req, res) => { res.json(await reader.status()); });
  await app.listen(port, '127.0.0.1');
} else {
  const s = createHttpServer({ reader: reader as never, admission: {} as never, compiler: {} as never, saveContract: async () => {}, log: pino({ level: 'warn' }), now: Date.now,
    rateLimit: mode === 'exempt' ? { exempt: ['127.0.0.1'] } : { max: 1e9 } });
  await s.listen('127.0.0.1', port);
}
console.log('up');
