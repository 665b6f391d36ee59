"""Message-IDs on the sending domain (MAIL_FROM's): one per email row, kept across retries."""

from __future__ import annotations

from email.utils import make_msgid

from models.settings import get_settings


def message_id() -> str:
    return make_msgid(domain=get_settings().sender.rpartition("@")[2] or "localhost")
