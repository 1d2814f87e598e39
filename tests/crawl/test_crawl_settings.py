"""A crawl's settings copied value by value: the same as Scrapy's deep copy, and as independent."""

from __future__ import annotations

from scrapy.settings import BaseSettings, Settings

from lightsearch.config import make_settings
from lightsearch.crawl.crawl_settings import CrawlSettings


def _read(settings: BaseSettings) -> dict:
    return {name: (_read(settings[name]) if isinstance(settings[name], BaseSettings) else settings[name],
                   settings.getpriority(name)) for name in settings}


def test_a_copy_holds_every_setting_at_its_priority_as_a_deep_copy_does():
    settings = make_settings({"LIGHT_HOST_MAP": {"a.test": {"https": "127.0.0.1:1"}}, "LIGHT_ALLOWED_PORTS": [443, 8443]})
    settings.set("DOWNLOADER_MIDDLEWARES", {"x.Middleware": 5}, priority="spider")
    copied = CrawlSettings.of(settings)
    again = copied.copy()
    assert type(again) is CrawlSettings
    assert _read(copied) == _read(again) == _read(Settings.copy(settings)) == _read(settings)


def test_a_copy_shares_nothing_that_can_change():
    settings = make_settings({"LIGHT_HOST_MAP": {"a.test": {"https": "127.0.0.1:1"}}})
    copied = CrawlSettings.of(settings)
    copied["LIGHT_HOST_MAP"]["a.test"]["https"] = "127.0.0.1:2"
    copied["DOWNLOADER_MIDDLEWARES"]["x.Middleware"] = 7
    copied.set("LIGHT_DEADLINE_SECS", 1.0, priority="cmdline")
    assert settings["LIGHT_HOST_MAP"]["a.test"]["https"] == "127.0.0.1:1"
    assert "x.Middleware" not in settings["DOWNLOADER_MIDDLEWARES"]
    assert settings.getfloat("LIGHT_DEADLINE_SECS") != 1.0
    frozen = copied.frozencopy()
    copied.set("LIGHT_DEADLINE_SECS", 2.0, priority="cmdline")
    assert frozen.getfloat("LIGHT_DEADLINE_SECS") == 1.0
