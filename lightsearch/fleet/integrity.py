"""Records a fleet writes to Redis carry an HMAC keyed by the fleet's secret.

Whoever can write to the fleet's Redis without the key (a shared Redis, a leaked Redis
password, another tenant of the same instance) must not be able to forge evidence or
poison answers. Every value a fleet component stores is sealed: ``s1`` and 32 bytes of
HMAC-SHA256 over the key prefix, the namespace, the record's key and the payload, then
the payload. The key and namespace are inside the MAC, so a genuine record copied under
another key (another URL, another engine, another configuration) does not verify either.

The secret is ``FLEET_KEY`` or else the ``LIGHTSEARCH_FLEET_KEY`` environment variable,
at least :data:`MIN_KEY_CHARS` characters. Without one:

* a Redis on this machine (a loopback address, ``localhost``, a unix socket) is used
  unsigned (``u1`` and the payload), and ``meta.sharedState.integrity`` says so: its only
  writers are processes of this machine, which could read a key from the workers'
  environment as easily as write to Redis;
* any other Redis is refused (``invalid_settings`` naming ``LIGHTSEARCH_FLEET_KEY``):
  records from the network are evidence only when they are signed.

A sealed record that does not verify (no seal, a wrong MAC, an unsigned record where
records are signed, or the reverse) is dropped and counted like any record that does not
fit its shape; it is never an error of the search that met it.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from lightsearch.errors import LightSearchError

KEY_VARIABLE = "LIGHTSEARCH_FLEET_KEY"
MIN_KEY_CHARS = 32
SIGNED = b"s1"
UNSIGNED = b"u1"
MAC_BYTES = 32


class Misfit(Exception):
    """A record from shared state that does not verify or does not fit its declared shape;
    ``reason`` is a short token for the counters (``signature``, ``unsigned``, ``shape``...)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def loopback_redis(url: str) -> bool:
    """Whether ``url`` names a Redis on this machine (a unix socket, loopback, localhost)."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").rstrip(".").lower()
    except ValueError:
        return False
    if parts.scheme == "unix":
        return True
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def fleet_key(settings_value: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The fleet's secret from the setting, else the environment; None when neither is set."""
    raw = settings_value
    if not (isinstance(raw, str) and raw.strip()):
        raw = (os.environ if environ is None else environ).get(KEY_VARIABLE, "")
    raw = raw.strip() if isinstance(raw, str) else ""
    return raw or None


class Seal:
    """Seals and opens the values of one fleet (one Redis URL, key prefix and secret)."""

    def __init__(self, key: str | None, prefix: str) -> None:
        self._key = key.encode("utf-8") if key else None
        self.prefix = prefix.encode("utf-8")

    @classmethod
    def for_link(cls, url: str, prefix: str, key: str | None) -> Seal:
        """The seal of a fleet, or ``invalid_settings`` when a Redis off this machine has no key."""
        if key is not None and len(key) < MIN_KEY_CHARS:
            raise LightSearchError(
                "invalid_settings", f"{KEY_VARIABLE} (or FLEET_KEY) must be at least {MIN_KEY_CHARS} characters; "
                "make one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'",
                {"key": "FLEET_KEY", "variable": KEY_VARIABLE})
        if key is None and not loopback_redis(url):
            raise LightSearchError(
                "invalid_settings", f"the fleet's Redis is not on this machine, so its records must be signed: set "
                f"{KEY_VARIABLE} (or FLEET_KEY) to the same secret of at least {MIN_KEY_CHARS} characters on every "
                "worker", {"key": "FLEET_KEY", "variable": KEY_VARIABLE})
        return cls(key, prefix)

    @property
    def signed(self) -> bool:
        return self._key is not None

    def _mac(self, namespace: str, key: str, payload: bytes) -> bytes:
        assert self._key is not None
        mac = hmac.new(self._key, digestmod=hashlib.sha256)
        for part in (self.prefix, namespace.encode("utf-8"), key.encode("utf-8", "surrogatepass")):
            mac.update(len(part).to_bytes(4, "big"))
            mac.update(part)
        mac.update(payload)
        return mac.digest()

    def seal(self, namespace: str, key: str, payload: bytes) -> bytes:
        if self._key is None:
            return UNSIGNED + payload
        return SIGNED + self._mac(namespace, key, payload) + payload

    def open(self, namespace: str, key: str, value: object) -> bytes:
        """The payload of a value read back under ``namespace`` and ``key``; Misfit otherwise."""
        if not isinstance(value, bytes):
            raise Misfit("type")
        tag = value[:2]
        if self._key is None:
            if tag != UNSIGNED:
                raise Misfit("signed" if tag == SIGNED else "format")
            return value[2:]
        if tag != SIGNED:
            raise Misfit("unsigned" if tag == UNSIGNED else "format")
        mac, payload = value[2 : 2 + MAC_BYTES], value[2 + MAC_BYTES :]
        if len(mac) != MAC_BYTES or not hmac.compare_digest(mac, self._mac(namespace, key, payload)):
            raise Misfit("signature")
        return payload

    def describe(self) -> str:
        return "signed" if self.signed else "unsigned (Redis on loopback, no LIGHTSEARCH_FLEET_KEY)"
