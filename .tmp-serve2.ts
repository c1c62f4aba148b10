import HyperExpress from 'hyper-express';
const mode = process.argv[2]; const port = Number(process.argv[3]);
const reader = { status: async () => ({ chainId: 72020, height: 1, finalizedHeight: 1 }) };
const app = new HyperExpress.Server();
let inflight = 0;
if (mode !== 'bare') app.use((req, res, next) => {
  if (mode === 'close') { inflight++; res.once('close', () => { inflight--; }); }
  if (mode === 'header') res.header('x-request-id', 'abc-1');
  if (mode === 'ip') (req as any).locals.ip = req.ip;
  if (mode === 'send') { const orig = res.send; let done = false; (res as any).send = function (b: any, c: any) { const r = orig.call(res, b, c); if (!done && res.completed) { done = true; inflight--; } return r; }; inflight++; }
  next();
});
app.get('/status', async (req, res) => { res.json(await reader.status()); });
await app.listen(port, '127.0.0.1');
console.log('up');
