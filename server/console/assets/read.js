// fileReader reads byte ranges of a File for an engine that reads a file
// in place (session/place.go). An engine reads its ranges in order, a
// slice at a time, copies each into its own memory and decodes it before
// it asks for the next; so each read also starts reading the range after
// it, and the browser reads the file while the engine decodes. Reads go
// into two buffers used in turn (a byte stream's BYOB reader): a fresh
// ArrayBuffer per slice left the tab holding up to twice the file in
// garbage between collections. onRead hears how many bytes each read
// returned.
export function fileReader(file, onRead) {
  const buffers = [null, null];
  let turn = 0;
  let ahead = null;
  const get = (from, to) => {
    const i = turn;
    turn ^= 1;
    return readInto(file, from, to, buffers, i);
  };
  return async (from, to) => {
    const p = ahead && ahead.from === from && ahead.to === to ? ahead.bytes : get(from, to);
    ahead = null;
    const b = await p;
    if (to < file.size) {
      const next = Math.min(to + (to - from), file.size);
      ahead = { from: to, to: next, bytes: get(to, next) };
      ahead.bytes.catch(() => {}); // a read never asked for fails quietly
    }
    onRead(b.length);
    return b;
  };
}

// Reads of one File run one at a time in a worker, in the order asked,
// so a read-ahead a finished or cancelled query left in flight never
// runs beside the next query's first read. The soak of issue 26 saw
// queries stop reading for good just after a Cancel, in the engine whose
// read-ahead was left in flight; why a read never answered is not proven
// (two streams of one File at once on the page's thread answered in 100
// of 100 tries; the likely cause is in streaming, below), so STALL stays
// as the net.
const lastRead = new WeakMap(); // File -> the promise of its last read
function oneAtATime(file, read) {
  const p = (lastRead.get(file) || Promise.resolve()).then(read);
  lastRead.set(file, p.catch(() => {}));
  return p;
}

// STALL is how long a read may take before it is tried again as a plain
// slice: a read that never answers must not hold a query for ever. The
// soak saw about one stream read in two sessions never answer (on a
// machine at load 25; see streaming for the likely cause); a 4 MiB
// slice takes well under a second, and the first of the two reads to
// answer wins, so a slow read costs a second read, not an error.
// readStats.stalls counts them (worker "state"), and readStats.late
// those whose stream read answered after all, later (lateMaxMs: the
// slowest, from its start): a stall that answers late is a slow read (a
// loaded machine), one that never does is a lost one.
const STALL = 5000;
export const readStats = { stalls: 0, late: 0, lateMaxMs: 0 };

// readInto reads [from, to) of file into buffers[i] (grown as needed) and
// returns a view of the bytes read, after the file's earlier reads; a
// read that stalls is read again into a fresh ArrayBuffer.
function readInto(file, from, to, buffers, i) {
  return oneAtATime(file, () => {
    const began = performance.now();
    let timer;
    let stalled = false;
    const streamed = streamInto(file, from, to, buffers, i);
    streamed.then(() => {
      if (!stalled) return;
      readStats.late++;
      readStats.lateMaxMs = Math.max(readStats.lateMaxMs, performance.now() - began);
    }, () => {});
    const again = new Promise((resolve) => { timer = setTimeout(resolve, STALL); })
      .then(async () => {
        stalled = true;
        readStats.stalls++;
        return new Uint8Array(await file.slice(from, to).arrayBuffer());
      });
    return Promise.race([streamed, again]).finally(() => clearTimeout(timer));
  });
}

// readSlice reads [from, to) of file into a fresh ArrayBuffer (a Parquet
// file's byte ranges, a CSV file's slices) with readInto's net: a read
// that has not answered within STALL is read again, and the first answer
// wins. The soak saw a Parquet query after a Cancel stop at its second
// row group with the worker idle, waiting on such a read (issue 26).
export function readSlice(file, from, to) {
  const slice = () => file.slice(from, to).arrayBuffer().then((b) => new Uint8Array(b));
  const began = performance.now();
  let timer;
  let stalled = false;
  const first = slice();
  first.then(() => {
    if (!stalled) return;
    readStats.late++;
    readStats.lateMaxMs = Math.max(readStats.lateMaxMs, performance.now() - began);
  }, () => {});
  const again = new Promise((resolve) => { timer = setTimeout(resolve, STALL); })
    .then(() => {
      stalled = true;
      readStats.stalls++;
      return slice();
    });
  return Promise.race([first, again]).finally(() => clearTimeout(timer));
}

// streamInto reads [from, to) of file into buffers[i] through a byte
// stream; where the browser's Blob streams are not byte streams, it reads
// a fresh ArrayBuffer instead.
async function streamInto(file, from, to, buffers, i) {
  const n = to - from;
  let reader;
  const slice = file.slice(from, to);
  try {
    reader = slice.stream().getReader({ mode: "byob" });
  } catch {
    return new Uint8Array(await slice.arrayBuffer());
  }
  const held = { slice, reader };
  streaming.add(held);
  try {
    let buf = buffers[i] && buffers[i].byteLength >= n ? buffers[i] : new ArrayBuffer(n);
    let off = 0;
    while (off < n) {
      const { value, done } = await reader.read(new Uint8Array(buf, off, n - off));
      if (done) break;
      buf = value.buffer; // the read moved the memory to a new ArrayBuffer
      off += value.byteLength;
    }
    reader.releaseLock();
    buffers[i] = buf;
    return new Uint8Array(buf, 0, off);
  } finally {
    streaming.delete(held);
  }
}

// streaming holds every Blob stream being read, and its reader, until
// its read ends. Nothing else held them: a promise does not hold what
// will settle it, so only the browser's own loader kept a pending read
// alive, and a collection could take the reader with its read unsettled.
// WebKit fixed that very bug in its Blob streams (webkit.org bug 302685:
// "the stream reader could be GCed. This lead to read promises to never
// resolve"); the soak's stalled reads never answered, even 30 s later
// (readStats.late stayed 0), as a collected read would not.
const streaming = new Set();
