// SPDX-License-Identifier: MIT
// Reads an event recording (memusage --events=FILE; the format is
// libmemusage/include/memusage/events_format.h) on its own, so that the browser tests can
// replay a run's events without the report's writer or the page:
//   const recording = readEvents("/tmp/run.events");
//   recording.events: [{ kind: "allocate" | "release" | "resize", ns, thread, address,
//                        oldAddress, size, site }]   (ns: nanoseconds since the first clock)
//   recording.eventCount: the trailer's count (null when the run left no trailer)
//   heapPeak("/tmp/big.events"): the greatest heap of a replay, without keeping the events
//                                (a 10-million-event recording in a few seconds)
import { readFileSync } from "node:fs";

const MAGIC = "MUEVENT\n";
const TRAILER_MAGIC = "MUEVEND\n";
const KIND = { clock: 1, thread: 2, threadName: 3, allocate: 4, release: 5, resize: 6, again: 7 };
// Version 4's kinds of a described block (its release and resize carry its description,
// which these tests, replaying by address, read past): the same events as 4, 5 and 6.
const DESCRIBED = { 8: KIND.allocate, 9: KIND.release, 10: KIND.resize };

// Decodes the recording, calling visit(kind, cycles, thread, address, oldAddress, size, site)
// for each event (kind 0 allocate, 1 release, 2 resize; oldAddress and size -1 when the
// kind has none). Returns the clocks, the thread names and the trailer.
function scanEvents(path, visit) {
  const bytes = readFileSync(path);
  if (bytes.toString("latin1", 0, 8) !== MAGIC) throw new Error(path + ": not an event recording");
  const version = bytes.readUInt32LE(8);
  // Version 3 adds the writing machine's stamp to the header, which headerBytes skips;
  // version 4 the described blocks' kinds.
  if (version < 2 || version > 4) throw new Error(path + ": version " + version);
  const headerBytes = bytes.readUInt32LE(12);
  let at = headerBytes;

  // Varints as Numbers, which are exact to 2^53: user-space addresses and the shifted cycle
  // counter stay below it (a larger value fails the read rather than lose bits).
  const varint = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (at >= bytes.length) throw new Error(path + ": a record runs past the end");
      const byte = bytes[at++];
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) break;
      scale *= 128;
    }
    if (value > Number.MAX_SAFE_INTEGER) throw new Error(path + ": a varint past 2^53");
    return value;
  };
  const zigzag = () => {
    const v = varint();
    return v % 2 === 1 ? -(v + 1) / 2 : v / 2;
  };

  const clocks = []; // [cycles, ns] of every clock record, to turn cycles into nanoseconds
  const threadNames = new Map();
  let trailer = null;
  let time = 0;
  let thread = 0;
  let bases = new Map(); // the chunk's address base of each thread (0: before any thread)
  while (at < bytes.length) {
    if (bytes[at] === 0x4d && bytes.toString("latin1", at, at + 8) === TRAILER_MAGIC) {
      trailer = {
        eventCount: Number(bytes.readBigUInt64LE(at + 8)),
        endCycles: Number(bytes.readBigUInt64LE(at + 16)),
        endNs: Number(bytes.readBigUInt64LE(at + 24)),
        dropped: Number(bytes.readBigUInt64LE(at + 32)),
      };
      break;
    }
    const byte = bytes[at++];
    if (byte === 0) break; // a chunk the run did not finish writing
    const described = version >= 4 && byte in DESCRIBED;
    const kind = described ? DESCRIBED[byte] : byte;
    if (kind === KIND.clock) {
      time = varint();
      clocks.push([time, varint()]);
      thread = 0;
      bases = new Map([[0, 0]]);
    } else if (kind === KIND.thread) {
      thread = Number(varint());
      varint(); // tid
      bases.set(thread, 0);
    } else if (kind === KIND.again) {
      thread = Number(varint());
      if (!bases.has(thread)) throw new Error(path + ": thread " + thread + " not named");
    } else if (kind === KIND.threadName) {
      const serial = Number(varint());
      const length = Number(varint());
      threadNames.set(serial, bytes.toString("utf8", at, at + length));
      at += length;
    } else if (kind === KIND.allocate || kind === KIND.release || kind === KIND.resize) {
      time += varint();
      const base = bases.get(thread) ?? 0;
      const address = base + zigzag();
      if (kind === KIND.allocate) {
        const size = varint();
        visit(0, time, thread, address, -1, size, varint());
        bases.set(thread, address);
      } else if (kind === KIND.release) {
        if (described) for (let i = 0; i < 5; i++) varint(); // size site owner age lived_before
        visit(1, time, thread, address, -1, -1, -1);
        bases.set(thread, address);
      } else {
        const moved = address + zigzag();
        const size = varint();
        if (described) for (let i = 0; i < 5; i++) varint(); // old_size site owner age lived_before
        visit(2, time, thread, moved, address, size, -1);
        bases.set(thread, moved);
      }
    } else {
      throw new Error(path + ": unknown record kind " + byte + " at byte " + (at - 1));
    }
  }

  return { clocks, threadNames, trailer };
}

const KIND_NAMES = ["allocate", "release", "resize"];

export function readEvents(path) {
  const events = [];
  const { clocks, threadNames, trailer } = scanEvents(
    path,
    (kind, cycles, thread, address, oldAddress, size, site) =>
      events.push({
        kind: KIND_NAMES[kind],
        cycles,
        thread,
        address,
        oldAddress: kind === 2 ? oldAddress : null,
        size: size < 0 ? null : size,
        site: site < 0 ? null : site,
      }),
  );
  // Nanoseconds per cycle step from the first clock to the last (or the trailer's).
  const [c0, n0] = clocks[0];
  const [c1, n1] = trailer ? [trailer.endCycles, trailer.endNs] : clocks[clocks.length - 1];
  const rate = c1 > c0 ? (n1 - n0) / (c1 - c0) : 0;
  for (const e of events) e.ns = (e.cycles - c0) * rate;
  return { events, threadNames, eventCount: trailer ? trailer.eventCount : null, trailer };
}

// The greatest heap of a replay (as replay() counts it) and the events' count.
export function heapPeak(path) {
  const live = new Map();
  let heap = 0;
  let peak = 0;
  let count = 0;
  scanEvents(path, (kind, cycles, thread, address, oldAddress, size) => {
    count += 1;
    if (kind === 0) {
      live.set(address, size);
      heap += size;
    } else {
      const from = kind === 2 ? oldAddress : address;
      heap -= live.get(from) ?? 0;
      live.delete(from);
      if (kind === 2) {
        live.set(address, size);
        heap += size;
      }
    }
    if (heap > peak) peak = heap;
  });
  return { peak, count };
}

// Replays events in order: the heap after each (the bytes of the blocks allocated and not yet
// freed that the recording saw allocated) and each block's life.
export function replay(events) {
  const live = new Map(); // address -> block
  const blocks = [];
  const heapAfter = [];
  let heap = 0;
  events.forEach((e, index) => {
    if (e.kind === "allocate") {
      const block = { address: e.address, size: e.size, site: e.site, born: index, died: -1 };
      live.set(e.address, block);
      blocks.push(block);
      heap += e.size;
    } else {
      const from = e.kind === "resize" ? e.oldAddress : e.address;
      let block = live.get(from);
      if (!block && e.kind === "resize") {
        // A block allocated before the recording began: its life starts here.
        block = { address: from, size: 0, site: e.site, born: index, died: -1 };
        blocks.push(block);
      }
      if (block) {
        live.delete(from);
        heap -= block.size;
        if (e.kind === "release") block.died = index;
        else {
          block.address = e.address;
          block.size = e.size;
          live.set(e.address, block);
          heap += e.size;
        }
      }
    }
    heapAfter.push(heap);
  });
  return { heapAfter, blocks };
}

// Every event's time (seconds from the first clock), kind (0 allocate, 1 release, 2 resize),
// the bytes its call asked for as the text summary counts them (a resize: its growth) and
// the heap after it, as typed arrays: a 10-million-event recording in a few hundred MB,
// without an object per event.
export function eventColumns(path) {
  let capacity = 1 << 20;
  let cycles = new Float64Array(capacity);
  let kind = new Uint8Array(capacity);
  let asked = new Float64Array(capacity);
  let heapAfter = new Float64Array(capacity);
  let count = 0;
  const live = new Map();
  let heap = 0;
  const { clocks, trailer } = scanEvents(path, (k, time, thread, address, oldAddress, size) => {
    if (count === capacity) {
      capacity *= 2;
      const grow = (old, Type) => {
        const bigger = new Type(capacity);
        bigger.set(old);
        return bigger;
      };
      cycles = grow(cycles, Float64Array);
      kind = grow(kind, Uint8Array);
      asked = grow(asked, Float64Array);
      heapAfter = grow(heapAfter, Float64Array);
    }
    let ask = 0;
    if (k === 0) {
      live.set(address, size);
      heap += size;
      ask = size;
    } else {
      const from = k === 2 ? oldAddress : address;
      const old = live.get(from) ?? 0;
      heap -= old;
      live.delete(from);
      if (k === 2) {
        live.set(address, size);
        heap += size;
        ask = Math.max(0, size - old);
      }
    }
    cycles[count] = time;
    kind[count] = k;
    asked[count] = ask;
    heapAfter[count] = heap;
    count += 1;
  });
  const [c0, n0] = clocks[0];
  const [c1, n1] = trailer ? [trailer.endCycles, trailer.endNs] : clocks[clocks.length - 1];
  const rate = c1 > c0 ? (n1 - n0) / (c1 - c0) : 0;
  const seconds = cycles.subarray(0, count);
  for (let i = 0; i < count; i++) seconds[i] = ((seconds[i] - c0) * rate) / 1e9;
  return {
    count,
    seconds,
    kind: kind.subarray(0, count),
    asked: asked.subarray(0, count),
    heap: heapAfter.subarray(0, count),
  };
}
