#!/usr/bin/env python3
"""Small seeds for fuzz_etl from real ETL files: their first buffers, each shrunk to the bytes it
holds (an uncompressed buffer's BufferSize set to its saved offset; compressed ones as they are),
up to a size limit; and two files made here, which no real file has within the size limit:
tracelogging.etl, an uncompressed file of TraceLogging events, and compressed-stacks.etl: kernel CPU
samples with their stacks as the kernel writes them compressed (key references, the kernel- and
user-mode parts' definitions as KeyDelete and KeyRundown, a key reused, a whole Stack event, a sample
no stack names). Usage: etl_seeds.py OUT_DIR LIMIT [FILE.etl...]"""
import os
import struct
import sys
import uuid


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


def sized_buffer(events, size):
    """A WMI_BUFFER_HEADER of `size` bytes holding `events`, each 8-byte aligned, the rest 0xFF."""
    body = b''.join(e + b'\0' * (-len(e) % 8) for e in events)
    saved = 72 + len(body)
    head = struct.pack('<IIII', size, saved, saved, 0).ljust(0x28, b'\0')
    head += struct.pack('<HHII HH', 0, 1, 3, saved, 0x20, 0).ljust(72 - 0x28, b'\0')
    return (head + body).ljust(size, b'\xff')


def u16z(s):
    return s.encode('utf-16-le') + b'\0\0'


def logfile_event():
    """The logfile header event: pointer size 8, one processor, QPC at 10 MHz."""
    pay = struct.pack('<IIIIQIIII', 65536, 0x0501000A, 19045, 1, 0, 156250, 0, 0, 1)
    pay += struct.pack('<IIIIQQ', 1, 8, 0, 3400, 0, 0) + struct.pack('<i', 0) + b'\0' * 168
    pay += b'\0' * (-len(pay) % 8) + struct.pack('<qqqII', 0, 10_000_000, 0, 1, 0)
    pay += u16z('Seed') + u16z('seed.etl')
    return struct.pack('<HBBHHIIqQ', 2, 2, 0xC0, 32 + len(pay), 0, 1, 2, 1000, 0) + pay


def tracelogging_seed():
    """A logfile header buffer, then one buffer of TraceLogging events (EVENT_HEADER64 with a provider
    traits item 12 and a schema item 11): strings of both kinds, counted and terminated, a GUID, a
    FILETIME, arrays counted and fixed, nested structs, an array of structs; one event without traits.
    Laid out as tests/etl/test_etl.cpp builds its files."""
    buffer = sized_buffer
    logfile = logfile_event()

    def event(ts, schema, traits, payload):
        items = [(12, traits)] if traits else []
        items.append((11, schema))
        ext = b''
        for i, (kind, data) in enumerate(items):
            size = (8 + len(data) + 7) & ~7
            ext += struct.pack('<HHHH', size, kind, 1 if i + 1 < len(items) else 0, len(data)) + data
            ext += b'\0' * (size - 8 - len(data))
        head = struct.pack('<HBBHHIIq', 0, 0x13, 0xC0, 0x41, 0, 30, 31, ts)
        head += uuid.UUID('d5b90669-1aad-5db8-16c9-6286a7fcfe33').bytes_le
        head += struct.pack('<HBBBBHQQ', 0, 0, 11, 5, 0, 0, 0, 0) + b'\0' * 16
        e = head + ext + payload
        return struct.pack('<H', len(e)) + e[2:]

    def field(name, intype, outtype=None):
        return name.encode() + b'\0' + (bytes([intype]) if outtype is None else bytes([intype | 0x80, outtype]))

    def schema(name, fields):
        body = b'\0' + name.encode() + b'\0' + b''.join(fields)
        return struct.pack('<H', 2 + len(body)) + body

    rich = schema('Rich', [field('Count', 7), field('Flag', 4, 3), field('Wide', 1), field('Narrow', 2),
                           field('CountedWide', 22), field('CountedNarrow', 23), field('Id', 15), field('When', 17),
                           field('Blob', 14), field('Values', 8 | 0x40), field('Pair', 5 | 0x20) + struct.pack('<H', 2),
                           field('Point', 24, 2), field('X', 9), field('Inner', 24, 1), field('Name', 2),
                           field('Items', 24 | 0x40, 1), field('V', 4, 4)])
    rich_payload = (struct.pack('<iB', -5, 1) + u16z('wide') + b'narrow\0' + struct.pack('<H', 4) + 'ab'.encode('utf-16-le')
                    + struct.pack('<H', 2) + b'cd' + uuid.UUID('01234567-89ab-cdef-0123-456789abcdef').bytes_le
                    + struct.pack('<QH', 133_000_000_000_000_000, 2) + b'\xde\xad' + struct.pack('<HII', 2, 1, 2)
                    + struct.pack('<hhq', -1, 7, -9) + b'inner\0' + struct.pack('<HBB', 2, 0x10, 0x20))
    traits = b'MyCompany.MyProvider\0'
    traits = struct.pack('<H', 2 + len(traits)) + traits
    seed = buffer([logfile], 1024) + buffer([event(2000, rich, traits, rich_payload),
                                             event(3000, schema('Bare', [field('S', 1)]), b'', u16z('x'))], 1024)
    return b'\0' + seed  # the harness reads its options from the first byte


def metadata_seed():
    """KernelTraceControl-MetaData events (FULL_HEADER64 classic events of {bbccf6c1-...}): an EventMapInfo and
    an EventInfo describing event 40 v2 of another provider (a length and a count from earlier properties, a
    struct array, a map, a pointer, a string), then two such EVENT_HEADER64 events."""
    provider = uuid.UUID('0a0b0c0d-1111-2222-3333-444455556666').bytes_le

    def classic(ts, opcode, payload):
        e = struct.pack('<HBBBBHIIq', 0, 0x0A, 0xC0, opcode, 4, 0, 20, 10, ts)
        e += uuid.UUID('bbccf6c1-6cd1-48c4-80ff-839482e37671').bytes_le + struct.pack('<Q', 0) + payload
        return struct.pack('<H', len(e)) + e[2:]

    def described(ts, payload):
        e = struct.pack('<HBBHHIIq', 0, 0x13, 0xC0, 0x40, 0, 30, 31, ts) + provider
        e += struct.pack('<HBBBBHQQ', 40, 2, 0, 4, 1, 1, 1, 0) + b'\0' * 16 + payload
        return struct.pack('<H', len(e)) + e[2:]

    # (name, flags, in-type or first member, out-type or member count, map, count or its property, length or its)
    props = [('Size', 0, 8, 8, '', 1, 0), ('Data', 2, 14, 15, '', 1, 0), ('Kind', 0, 8, 8, 'KindMap', 1, 0),
             ('N', 0, 6, 6, '', 1, 0), ('Items', 5, 6, 2, '', 3, 0), ('Tail', 0, 1, 1, '', 1, 0),
             ('X', 0, 7, 7, '', 1, 0), ('Y', 0, 16, 19, '', 1, 0)]
    info = bytearray(provider + bytes(16) + struct.pack('<HBBBBHQ', 40, 2, 16, 4, 1, 7, 0x10))
    info += bytes(112 - len(info)) + bytes(24 * len(props))

    def string(s):
        if not s:
            return 0
        at = len(info)
        info.extend(u16z(s))
        return at
    struct.pack_into('<I', info, 52, string('My-Described-Provider'))
    struct.pack_into('<II', info, 68, string('Transfer'), string('win:Start'))
    struct.pack_into('<III', info, 100, len(props), 6, 1)
    for i, (name, flags, t, o, m, c, length) in enumerate(props):
        at = 112 + 24 * i
        struct.pack_into('<IIHHIHH', info, at, flags, string(name), t, o, string(m), c, length)
    entries = [(1, 'One '), (2, 'Two ')]
    names = u16z('KindMap')
    table = struct.pack('<IIII', 16 + 8 * len(entries), 1, len(entries), 0)
    tail = names
    for value, text in entries:
        table += struct.pack('<II', 16 + 8 * len(entries) + len(tail), value)
        tail += u16z(text)
    payload = (struct.pack('<I', 3) + b'\xaa\xbb\xcc' + struct.pack('<IH', 2, 2) + struct.pack('<iQiQ', -1, 16, 5, 32)
               + u16z('end'))
    seed = sized_buffer([logfile_event()], 1024) + sized_buffer(
        [classic(2000, 33, provider + table + tail), classic(2001, 32, bytes(info)),
         described(2002, payload), described(2003, payload[:9])], 2048)
    return b'\0' + seed  # the harness reads its options from the first byte


with open(os.path.join(out, 'metadata.etl'), 'wb') as f:
    f.write(metadata_seed())
with open(os.path.join(out, 'tracelogging.etl'), 'wb') as f:
    f.write(tracelogging_seed())
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
