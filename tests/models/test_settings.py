"""Settings: every variable decoded and bounded in one Struct, refused with its name when bad."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from models import settings
from models.settings import Settings, SettingsError, get_settings, read

README = Path(__file__).resolve().parents[2] / "README.md"


def test_defaults_when_nothing_is_set():
    s = read({})
    assert s == Settings()
    assert (s.database_url, s.port, s.public_url, s.redis_url, s.metrics_token) == (
        "sqlite:///pressline.sqlite3",
        8000,
        None,
        None,
        None,
    )
    assert (s.rate_limit_read, s.rate_limit_write, s.log_level) == (60, 20, "INFO")
    assert s.webhook_backoff == (60, 300, 900, 3600, 14400)
    assert (s.webhook_max_attempts, s.webhook_deactivate_after) == (5, 20)
    assert (s.webhook_timeout, s.webhook_poll_interval, s.webhook_lease) == (10.0, 1.0, 60.0)
    assert (s.webhook_concurrency, s.webhook_retention_days) == (1024, 30)
    assert s.webhook_max_in_flight_per_subscription == 4
    assert s.shutdown_grace == 15.0  # WEBHOOK_TIMEOUT + 5 while unset
    assert s.webhook_allow_private_targets is False


def test_values_are_decoded_from_text():
    s = read(
        {
            "PORT": " 9000 ",
            "PUBLIC_URL": "https://pressline.example.com",
            "REDIS_URL": "redis://cache:6379/0",
            "LOG_LEVEL": "debug",
            "METRICS_TOKEN": "scrape-me",
            "WEBHOOK_ALLOW_PRIVATE_TARGETS": "yes",
            "WEBHOOK_BACKOFF": "5, 10,0",
            "WEBHOOK_TIMEOUT": "2.5",
            "WEBHOOK_LEASE": "3",
            "WEBHOOK_SHUTDOWN_GRACE": "0",
            "WEBHOOK_RETENTION_DAYS": "7",
            "RATE_LIMIT_READ": "",  # empty counts as unset
            "FORWARDED_HOPS": "0",
        }
    )
    assert s.forwarded_hops == 0
    assert read({}).forwarded_hops == 1
    assert (s.port, s.public_url, s.redis_url, s.log_level) == (
        9000,
        "https://pressline.example.com",
        "redis://cache:6379/0",
        "DEBUG",
    )
    assert (s.metrics_token, s.webhook_allow_private_targets) == ("scrape-me", True)
    assert s.webhook_backoff == (5, 10, 0)
    assert (s.webhook_timeout, s.webhook_lease, s.shutdown_grace) == (2.5, 3.0, 0.0)
    assert (s.webhook_retention_days, s.rate_limit_read) == (7, 60)
    assert read({"WEBHOOK_ALLOW_PRIVATE_TARGETS": "0"}).webhook_allow_private_targets is False


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("WEBHOOK_RETENTION_DAYS", "0", "a whole number of at least 1"),
        ("WEBHOOK_RETENTION_DAYS", "-1", "a whole number of at least 1"),
        ("WEBHOOK_RETENTION_DAYS", "abc", "a whole number of at least 1"),
        ("WEBHOOK_RETENTION_DAYS", "1.5", "a whole number of at least 1"),
        ("PORT", "70000", "a whole number from 1 to 65535"),
        ("FORWARDED_HOPS", "11", "a whole number from 0 to 10"),
        ("FORWARDED_HOPS", "-1", "a whole number from 0 to 10"),
        ("RATE_LIMIT_READ", "0", "a whole number of at least 1"),
        ("RATE_LIMIT_WRITE", "many", "a whole number of at least 1"),
        ("WEBHOOK_MAX_ATTEMPTS", "0", "a whole number of at least 1"),
        ("WEBHOOK_DEACTIVATE_AFTER", "-3", "a whole number of at least 1"),
        ("WEBHOOK_CONCURRENCY", "0", "a whole number of at least 1"),
        ("WEBHOOK_TIMEOUT", "0", "a number greater than 0 and at most 86400"),
        ("WEBHOOK_TIMEOUT", "nan", "a number greater than 0"),
        ("WEBHOOK_POLL_INTERVAL", "-1", "a number greater than 0"),
        ("WEBHOOK_LEASE", "soon", "a number greater than 0"),
        ("WEBHOOK_SHUTDOWN_GRACE", "-1", "a number from 0 to 86400"),
        ("WEBHOOK_BACKOFF", "60,,900", "a comma-separated list of whole seconds"),
        ("WEBHOOK_BACKOFF", "60,-5", "a comma-separated list of whole seconds"),
        ("WEBHOOK_ALLOW_PRIVATE_TARGETS", "maybe", "1 or 0"),
        ("LOG_LEVEL", "loud", "one of CRITICAL, DEBUG, ERROR, INFO, WARNING"),
    ],
)
def test_a_bad_value_is_refused_naming_the_variable(name, value, says):
    with pytest.raises(SettingsError) as refused:
        read({name: value})
    message = str(refused.value)
    assert message.startswith(f"invalid configuration: {name} must be {says}")
    assert message.endswith(f", got {value!r}")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("environ", "says"),
    [
        (
            {"WEBHOOK_TIMEOUT": "10", "WEBHOOK_LEASE": "10"},
            "WEBHOOK_LEASE (10 s) must be longer than WEBHOOK_TIMEOUT (10 s)",
        ),
        ({"WEBHOOK_TIMEOUT": "90"}, "WEBHOOK_LEASE (60 s) must be longer than WEBHOOK_TIMEOUT"),
        ({"PUBLIC_URL": "pressline.example.com"}, "PUBLIC_URL must be an absolute http(s) URL"),
        ({"PUBLIC_URL": "ftp://files.example.com"}, "PUBLIC_URL must be an absolute http(s) URL"),
        ({"PUBLIC_URL": "https://"}, "PUBLIC_URL must be an absolute http(s) URL"),
        ({"PUBLIC_URL": "https://x.example/?a=1"}, "PUBLIC_URL must be an absolute http(s) URL"),
        ({"PUBLIC_URL": "https://x.example/#top"}, "PUBLIC_URL must be an absolute http(s) URL"),
        ({"PUBLIC_URL": "https://x.example:99999"}, "PUBLIC_URL must be an absolute http(s) URL"),
        ({"PUBLIC_URL": "https://u:pw@x.example"}, "got 'https://u:****@x.example'"),
        ({"DATABASE_URL": "mysql://db/pressline"}, "DATABASE_URL must be sqlite:///"),
        ({"DATABASE_URL": "postgres://u:pw@db:5432"}, "DATABASE_URL for PostgreSQL must name"),
        ({"REDIS_URL": "cache:6379"}, "REDIS_URL must start with redis://"),
    ],
)
def test_rules_across_variables_and_url_forms(environ, says):
    with pytest.raises(SettingsError, match=re.escape(says)) as refused:
        read(environ)
    assert "pw" not in str(refused.value)  # a database password is never repeated


def test_an_invalid_setting_stops_the_process_with_status_1():
    refused = SettingsError("PORT must be a whole number")
    assert isinstance(refused, SystemExit)  # not caught by `except Exception` on the way
    assert refused.code == "invalid configuration: PORT must be a whole number"


def test_get_settings_is_read_once_per_environment(monkeypatch):
    first = get_settings()
    assert get_settings() is first  # decoded once
    monkeypatch.setenv("RATE_LIMIT_READ", "7")
    changed = get_settings()
    assert changed.rate_limit_read == 7 and get_settings() is changed
    monkeypatch.setenv("RATE_LIMIT_READ", "0")
    with pytest.raises(SettingsError, match="RATE_LIMIT_READ"):
        get_settings()


def test_the_readme_table_lists_every_variable_and_only_those():
    text = README.read_text(encoding="utf-8")
    section = text.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    documented = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            documented.update(re.findall(r"`([A-Z_]+)`", line.split("|")[1]))
    assert documented == set(settings.NAMES)
