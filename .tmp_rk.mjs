import RocksDB from 'rocksdb-native'
const a = new RocksDB('/tmp/rk/db1'); await a.ready()
try { const b = new RocksDB('/tmp/rk/db1'); await b.ready() } catch (e) { console.log('same-proc', e.code, e.message) }
try { const c = new RocksDB('/tmp/rk/none', {readOnly:true, createIfMissing:false}); await c.ready() } catch (e) { console.log('ro', e.code, e.message) }
try { const c = new RocksDB('/proc/x/y'); await c.ready() } catch (e) { console.log('perm', e.code, e.message) }
const w = a.write(); w.tryPut(Buffer.from([1]), Buffer.from([2])); await w.flush()
console.log(await a.get(Buffer.from([1])), await a.get(Buffer.from([9])))
for await (const x of a.iterator({gte: Buffer.from([0]), lt: Buffer.from([5]), reverse: true, limit: 5})) console.log(x)
await a.close()
