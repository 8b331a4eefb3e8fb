"""Start-up safety: no placeholder secret outside the embedded default, no open API off loopback."""

from __future__ import annotations

import pytest

from app.config import Settings, UnsafeSettingsError, check_startup_safety, is_loopback


def test_placeholder_secret_is_refused_on_postgresql() -> None:
    settings = Settings(database_url="postgresql+asyncpg://x@127.0.0.1/db")
    with pytest.raises(UnsafeSettingsError, match="SECRET_KEY"):
        check_startup_safety(settings, "127.0.0.1")


def test_placeholder_secret_is_accepted_on_the_embedded_default() -> None:
    check_startup_safety(Settings(), "127.0.0.1")


def test_privacy_mode_refuses_the_placeholder_secret_even_on_the_embedded_default() -> None:
    # Issue 36: the privacy salt is encrypted with the secret key; under the public placeholder
    # anyone with the database file could read it.
    with pytest.raises(UnsafeSettingsError, match="PRIVACY=hash needs a real"):
        check_startup_safety(Settings(privacy="hash"), "127.0.0.1")
    check_startup_safety(Settings(privacy="hash", secret_key="ab" * 32), "127.0.0.1")


def test_auth_off_is_refused_on_a_public_address() -> None:
    with pytest.raises(UnsafeSettingsError, match="loopback"):
        check_startup_safety(Settings(auth="off"), "0.0.0.0")


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("10.0.0.1", False),
        ("example.org", False),
    ],
)
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_secret_key_never_appears_in_the_settings_repr() -> None:
    settings = Settings(secret_key="super-secret-value")
    assert "super-secret-value" not in repr(settings)
    assert "super-secret-value" not in settings.model_dump_json()


def test_each_api_process_takes_its_share_of_the_servers_bounds() -> None:
    settings = Settings(serve_workers=3)
    assert settings.per_process(256) == 85
    assert settings.per_process(2) == 1  # never below one
    assert Settings().per_process(256) == 256
