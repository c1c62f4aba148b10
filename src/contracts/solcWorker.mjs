// Compiles Solidity standard-JSON input off the main thread (solc-js is synchronous WASM).
import { parentPort } from 'node:worker_threads';
import solc from 'solc';

parentPort.on('message', ({ id, input }) => {
  try {
    parentPort.postMessage({ id, output: solc.compile(input), version: solc.version() });
  } catch (e) {
    parentPort.postMessage({ id, error: String(e?.message ? e.message : e) });
  }
});
