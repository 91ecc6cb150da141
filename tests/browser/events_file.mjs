// Reads an event recording (memusage --events=FILE; the format is
// libmemusage/include/memusage/events_format.h) on its own, so that the browser tests can
// replay a run's events without the report's writer or the page:
//   const recording = readEvents("/tmp/run.events");
//   recording.events: [{ kind: "allocate" | "release" | "resize", ns, thread, address,
//                        oldAddress, size, site }]   (ns: nanoseconds since the first clock)
//   recording.eventCount: the trailer's count (null when the run left no trailer)
import { readFileSync } from "node:fs";

const MAGIC = "MUEVENT\n";
const TRAILER_MAGIC = "MUEVEND\n";
const KIND = { clock: 1, thread: 2, threadName: 3, allocate: 4, release: 5, resize: 6, again: 7 };

export function readEvents(path) {
  const bytes = readFileSync(path);
  if (bytes.toString("latin1", 0, 8) !== MAGIC) throw new Error(path + ": not an event recording");
  const version = bytes.readUInt32LE(8);
  if (version !== 2) throw new Error(path + ": version " + version);
  const headerBytes = bytes.readUInt32LE(12);
  let at = headerBytes;

  // Varints are read as BigInt: addresses and cycle counts pass 2^53.
  const varint = () => {
    let value = 0n;
    let shift = 0n;
    for (;;) {
      if (at >= bytes.length) throw new Error(path + ": a record runs past the end");
      const byte = bytes[at++];
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
      shift += 7n;
    }
  };
  const zigzag = () => {
    const v = varint();
    return (v >> 1n) ^ -(v & 1n);
  };

  const clocks = []; // [cycles, ns] of every clock record, to turn cycles into nanoseconds
  const raw = []; // events with their times in cycles
  const threadNames = new Map();
  let trailer = null;
  let time = 0n;
  let thread = 0;
  let bases = new Map(); // the chunk's address base of each thread (0: before any thread)
  while (at < bytes.length) {
    if (bytes.toString("latin1", at, at + 8) === TRAILER_MAGIC) {
      trailer = {
        eventCount: Number(bytes.readBigUInt64LE(at + 8)),
        endCycles: bytes.readBigUInt64LE(at + 16),
        endNs: bytes.readBigUInt64LE(at + 24),
        dropped: Number(bytes.readBigUInt64LE(at + 32)),
      };
      break;
    }
    const kind = bytes[at++];
    if (kind === 0) break; // a chunk the run did not finish writing
    if (kind === KIND.clock) {
      time = varint();
      clocks.push([time, varint()]);
      thread = 0;
      bases = new Map([[0, 0n]]);
    } else if (kind === KIND.thread) {
      thread = Number(varint());
      varint(); // tid
      bases.set(thread, 0n);
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
      const base = bases.get(thread) ?? 0n;
      const address = base + zigzag();
      const event = { cycles: time, thread, address, oldAddress: null, size: null, site: null };
      if (kind === KIND.allocate) {
        Object.assign(event, { kind: "allocate", size: Number(varint()), site: Number(varint()) });
      } else if (kind === KIND.release) {
        event.kind = "release";
      } else {
        Object.assign(event, { kind: "resize", oldAddress: address });
        event.address = address + zigzag();
        event.size = Number(varint());
      }
      bases.set(thread, event.address);
      raw.push(event);
    } else {
      throw new Error(path + ": unknown record kind " + kind + " at byte " + (at - 1));
    }
  }

  // Nanoseconds per cycle step from the first clock to the last (or the trailer's).
  const [c0, n0] = clocks[0];
  const [c1, n1] = trailer ? [trailer.endCycles, trailer.endNs] : clocks[clocks.length - 1];
  const rate = c1 > c0 ? Number(n1 - n0) / Number(c1 - c0) : 0;
  const events = raw.map((e) => ({
    ...e,
    ns: Number(e.cycles - c0) * rate,
    address: Number(e.address),
    oldAddress: e.oldAddress === null ? null : Number(e.oldAddress),
  }));
  return { events, threadNames, eventCount: trailer ? trailer.eventCount : null, trailer };
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
