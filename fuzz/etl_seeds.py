#!/usr/bin/env python3
"""Small seeds for fuzz_etl from real ETL files: their first buffers, each shrunk to the bytes it
holds (an uncompressed buffer's BufferSize set to its saved offset; compressed ones as they are),
up to a size limit. Usage: etl_seeds.py OUT_DIR LIMIT FILE.etl..."""
import os
import struct
import sys

out, limit = sys.argv[1], int(sys.argv[2])
for path in sys.argv[3:]:
    data = open(path, 'rb').read()
    seed, off = bytearray(b'\x00'), 0  # the harness reads its options from the first byte
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
