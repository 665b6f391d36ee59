"""The CSV import takes files up to the documented 5 MiB (docs/admin.md); a larger one is
refused with the 413 page saying so, and nothing is imported. The app's 1 MiB limit on
request bodies (api/app.py) does not apply to this route."""

from __future__ import annotations

import pytest

from models.tables import Sku, StockMovement
from tests.admin.conftest import Shop
from tests.admin.test_inventory import upload

MIB = 1024 * 1024
HEADER = "code,style,brand,colour,colour_hex,size,on_hand,reorder_point\n"
REFUSED = (
    "The file is larger than 5 MiB, the most one import takes. Nothing was imported: "
    "split it into smaller files and import each."
)


def _row(n: int) -> str:
    """A full SKU row with long but valid cells (about 300 bytes), so few rows make the size."""
    style = f"Heavyweight Garment-Dyed Relaxed Fit Long Sleeve Pocket Tee - Organic Cotton {n:08d}"
    brand = "Comfort Colors by Gildan Activewear Incorporated - Screen Printing Blanks Line"
    colour = "Washed Denim Blue - Pigment Dyed - Lot"
    return f"TEE-{n:08d}-WASHED-DENIM-XXL,{style},{brand},{colour},#1F2A44,XXL,120,10\n"


def _file(size: int) -> tuple[str, int]:
    """A CSV of exactly `size` bytes (the last row's on_hand padded with zeros) and its SKU
    count."""
    rows, total, n = [HEADER], len(HEADER), 0
    while total + len(_row(n + 1)) * 2 < size:
        n += 1
        rows.append(_row(n))
        total += len(rows[-1])
    n += 1
    last = _row(n)
    pad = size - total - len(last)
    assert 0 <= pad < 2 * len(last), pad
    rows.append(last.replace(",120,", "," + "0" * pad + "120,", 1))
    text = "".join(rows)
    assert len(text.encode()) == size
    return text, n


@pytest.mark.slow  # 17,000 SKUs: 15-25 s on a 2-core machine
async def test_a_file_just_under_five_mib_is_imported(shop: Shop) -> None:
    content, count = _file(int(4.9 * MIB))
    answer = await upload(shop.client, content)
    assert answer.status_code == 303, answer.text[-2000:]
    assert await Sku.count() == count
    assert await StockMovement.count() == count
    last = await Sku.objects().where(Sku.code == f"TEE-{count:08d}-WASHED-DENIM-XXL").first()
    assert (last.on_hand, last.reorder_point, last.colour_hex) == (120, 10, "#1F2A44")
    listing = await shop.client.get(answer.headers["location"])
    assert f"Imported {count:,} SKUs from skus.csv." in listing.text


async def test_a_file_over_five_mib_gets_the_413_page_and_nothing_is_imported(shop: Shop):
    for size in (int(5.1 * MIB), 5 * MIB + 1, 20 * MIB):
        content = HEADER + "x" * (size - len(HEADER))
        answer = await upload(shop.client, content)
        assert answer.status_code == 413, (size, answer.text[-2000:])
        assert REFUSED in answer.text, size
        assert answer.headers["content-type"].startswith("text/html")
    assert await Sku.count() == 0
    # Exactly 5 MiB is still taken (and read: this one's rows are refused by line, 422).
    exact = await upload(shop.client, HEADER + "x" * (5 * MIB - len(HEADER)))
    assert exact.status_code == 422
    assert "Nothing was imported." in exact.text
    assert "unreadable CSV: field larger than field limit" in exact.text
