"""Small real files for proof uploads: a PNG drawn in a few lines, a one-page PDF."""

from __future__ import annotations

import struct
import zlib


def png(width: int = 240, height: int = 160, colour: tuple[int, int, int] = (29, 78, 216)) -> bytes:
    """A solid-colour PNG with a white stripe (a real image a browser shows)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = []
    for y in range(height):
        pixel = bytes((255, 255, 255)) if height // 3 < y < height // 2 else bytes(colour)
        rows.append(b"\x00" + pixel * width)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + chunk(b"IEND", b"")
    )


PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)
