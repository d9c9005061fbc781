#!/usr/bin/env python3
"""Small seeds for fuzz_etl from real ETL files: their first buffers, each shrunk to the bytes it
holds (an uncompressed buffer's BufferSize set to its saved offset; compressed ones as they are),
up to a size limit; and one file made here, compressed-stacks.etl: kernel CPU samples with their
stacks as the kernel writes them compressed (key references, the kernel- and user-mode parts'
definitions as KeyDelete and KeyRundown, a key reused, a whole Stack event, a sample no stack
names), which no real file has within the size limit.
Usage: etl_seeds.py OUT_DIR LIMIT FILE.etl..."""
import os
import struct
import sys


def event(header_type, hook, payload, timestamp, tid=0xFFFFFFFF, pid=0xFFFFFFFF, stack=(), version=2):
    """A kernel event: SYSTEM64 (0x02, 32-byte header) or PERFINFO64 (0x11, 16 bytes), 8-byte aligned."""
    body = payload + b''.join(struct.pack('<Q', a) for a in stack)
    if header_type == 0x11:
        head = struct.pack('<HBBHHq', version, 0x11, 0xC0, 16 + len(body), hook, timestamp)
    else:
        head = struct.pack('<HBBHHIIqII', version, 0x02, 0xC0, 32 + len(body), hook, tid, pid, timestamp, 0, 0)
    e = head + body
    return e + b'\0' * (-len(e) % 8)


def buffer(events, processor, sequence):
    """A WMI_BUFFER_HEADER (72 bytes) and its events, uncompressed, sized to what it holds."""
    data = b''.join(events)
    head = bytearray(72)
    struct.pack_into('<II', head, 0, 72 + len(data), 72 + len(data))
    struct.pack_into('<qq', head, 0x10, 1000, sequence)
    struct.pack_into('<H', head, 0x28, processor)
    return bytes(head) + data


def compressed_stacks_seed():
    # The logfile header: pointer size 8, 1 processor, QPC clock at 10 MHz (TRACE_LOGFILE_HEADER, 280 bytes).
    header = bytearray(280)
    struct.pack_into('<IIII', header, 0, 65536, 0x0A000000, 9200, 1)
    struct.pack_into('<I', header, 44, 8)
    struct.pack_into('<qqqI', header, 248, 0, 10_000_000, 0, 1)
    header += 'seed\0\0'.encode('utf-16-le')  # the session's name, no file name
    key_k, key_u = 0xFFFFFA8000000100, 0xFFFFFA8000000200
    kernel = [0xFFFFF80000001000, 0xFFFFF80000002000]
    user = [0x7FF600001000, 0x7FF600002000]

    def sample(t, tid):
        return event(0x11, 0x0F2E, struct.pack('<QIHH', kernel[0], tid, 1, 0), t)

    def ref(hook, t, of, tid, key):
        return event(0x11, hook, struct.pack('<QIIQ', of, 4242, tid, key), t)

    events = [
        event(0x02, 0x0000, bytes(header), 1),
        event(0x02, 0x0501, struct.pack('<II', 4242, 7) + bytes(7 * 8 + 8), 2, 7, 4242, version=3),  # Thread/Start: 7 in 4242
        event(0x02, 0x0F49, struct.pack('<III', 0, 10000, 10000) + 'Timer\0'.encode('utf-16-le'), 3, 7, 4242,
              version=3),
        sample(10, 7), ref(0x1825, 11, 10, 7, key_k), ref(0x1826, 12, 10, 7, key_u),
        sample(20, 7), ref(0x1825, 21, 20, 7, key_k),                      # in the kernel: its user part comes
        ref(0x1826, 25, 24, 7, key_u),                                     # when thread 7 leaves the kernel
        event(0x11, 0x1823, struct.pack('<Q', key_k), 30, stack=kernel),  # KeyDelete: key_k may name another part
        sample(40, 7), ref(0x1825, 41, 40, 7, key_k),
        sample(50, 7), event(0x11, 0x1820, struct.pack('<QII', 50, 4242, 7), 51, stack=user),  # a whole stack
        sample(60, 0),                                                     # idle: no stack
        event(0x11, 0x1824, struct.pack('<Q', key_k), 90, stack=kernel[1:]),  # KeyRundown at the end
        event(0x11, 0x1824, struct.pack('<Q', key_u), 91, stack=user),
    ]
    return buffer(events, 0, 1)


out, limit = sys.argv[1], int(sys.argv[2])
with open(os.path.join(out, 'compressed-stacks.etl'), 'wb') as f:
    f.write(b'\x00' + compressed_stacks_seed())  # the harness reads its options from the first byte
for path in sys.argv[3:]:
    data = open(path, 'rb').read()
    seed, off = bytearray(b'\x00'), 0
    while off + 72 <= len(data):
        size, saved = struct.unpack_from('<II', data, off)
        flags = struct.unpack_from('<H', data, off + 0x34)[0]
        if size < 72:
            break
        if flags & 0x40:
            buf = bytearray(data[off:off + size])
        else:
            buf = bytearray(data[off:off + saved])
            struct.pack_into('<I', buf, 0, saved)
        if len(seed) + len(buf) > limit:
            break
        seed += buf
        off += size
    with open(os.path.join(out, os.path.basename(path)), 'wb') as f:
        f.write(seed)
