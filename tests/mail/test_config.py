"""SMTP_URL and MAIL_FROM: read, checked, and their defaults (one Settings object)."""

from __future__ import annotations

import pytest

from models.settings import SettingsError, read
from models.smtp_url import parse_smtp_url


def test_smtp_url_forms() -> None:
    plain = parse_smtp_url("smtp://mail.example.com")
    assert (plain.host, plain.port, plain.implicit_tls, plain.starttls) == (
        "mail.example.com",
        25,
        False,
        False,
    )
    starttls = parse_smtp_url("smtp://apikey:s%40cret@smtp.example.com?starttls=1")
    assert (starttls.port, starttls.starttls, starttls.username, starttls.password) == (
        587,
        True,
        "apikey",
        "s@cret",
    )
    implicit = parse_smtp_url("smtps://u:p@smtp.example.com")
    assert (implicit.port, implicit.implicit_tls) == (465, True)
    assert parse_smtp_url("smtp://127.0.0.1:2525").port == 2525


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("http://u:secret@mail.example.com", "must start with smtp:// or smtps://"),
        ("smtp://", "must name a host"),
        ("smtp://mail.example.com:99999", "port must be a number"),
        ("smtps://mail.example.com?starttls=1", "already TLS"),
        ("smtp://mail.example.com?tls=1", "unknown option 'tls'"),
        ("smtp://mail.example.com?starttls=maybe", "starttls must be 1 or 0"),
    ],
)
def test_a_bad_smtp_url_stops_the_process_with_one_line(value: str, words: str) -> None:
    with pytest.raises(SettingsError) as raised:
        read({"SMTP_URL": value})
    assert words in raised.value.message
    assert "secret" not in raised.value.message  # a password is never echoed


def test_mail_from_and_its_default() -> None:
    assert read({}).sender == "no-reply@localhost"
    assert read({"PUBLIC_URL": "https://pressline.example.com/x"}).sender == (
        "no-reply@pressline.example.com"
    )
    assert read({"MAIL_FROM": "orders@shop.example"}).sender == "orders@shop.example"
    for refused in ("not an address", "commandes@boutique-café.example", "<a@shop.example>"):
        with pytest.raises(SettingsError, match="MAIL_FROM must be an ASCII address"):
            read({"MAIL_FROM": refused})
    with pytest.raises(SettingsError, match="MAIL_CONCURRENCY"):
        read({"MAIL_CONCURRENCY": "0"})
