"""QR codes as inline SVG (segno): markup only, no script or style, so the admin's CSP holds."""

from __future__ import annotations

import segno
from markupsafe import Markup


def svg(data: str, *, title: str) -> Markup | None:
    """`data` as a QR code (error correction M: a printout survives a smudge), drawn as one
    path scaled by its viewBox, so CSS sizes it; None when `data` is too long for any QR
    code (a PUBLIC_URL of thousands of characters), and the page shows the address alone."""
    try:
        code = segno.make_qr(data, error="m", boost_error=False)
    except segno.DataOverflowError:
        return None
    drawn = code.svg_inline(
        omitsize=True, title=title, svgclass="qr", lineclass=None, dark="#000", border=4
    )
    return Markup(drawn)  # noqa: S704 - segno's own markup; `title` is escaped by segno
