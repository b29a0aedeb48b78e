"""Alert history past `executive.alert_retention` goes by the executive's hourly drop, not by a TTL per record."""

from __future__ import annotations

from flapjack_py import keys
from flapjack_py.store import alerts
from flapjack_py.store.plumbing.client import StrRedis

DAY = 86400
NOW = 1_700_000_000


def _record(client: StrRedis, alert_id: str, at: int) -> None:
    pipe = client.pipeline(transaction=True)
    alerts.add_alert(pipe, {"id": alert_id, "timestamp": at, "contact": "ada", "media": "email", "address": "a@x",
                            "check": "web-1:HTTP", "type": "problem", "rollup": "", "state": "critical",
                            "subject": "s", "body": "b", "status": "queued"}, 30 * DAY)
    pipe.execute()


def test_drop_old_alerts_deletes_records_and_index_entries_past_the_retention(real_s: StrRedis) -> None:
    old = [f"old{i}" for i in range(2500)]  # more than one round trip's chunk
    for alert_id in old:
        _record(real_s, alert_id, NOW - 31 * DAY)
    _record(real_s, "new", NOW - 29 * DAY)

    assert alerts.drop_old_alerts(real_s, NOW, 30 * DAY) == len(old)

    assert real_s.exists(*(keys.alert(alert_id) for alert_id in old)) == 0
    assert real_s.zrange(keys.alerts(), 0, -1) == ["new"]
    for index in (keys.alerts_by_contact("ada"), keys.alerts_by_contact("ada", "email"),
                  keys.alerts_by_check("web-1", "HTTP")):
        assert real_s.zrange(index, 0, -1) == ["new"]
    assert alerts.load_alert(real_s, "new") is not None
    assert alerts.drop_old_alerts(real_s, NOW, 30 * DAY) == 0


def test_a_recorded_alert_has_no_ttl_of_its_own_but_its_day_index_has(real_s: StrRedis) -> None:
    _record(real_s, "a1", NOW)
    assert real_s.ttl(keys.alert("a1")) == -1
    assert 30 * DAY < real_s.ttl(keys.alerts_by_time("20231114")) <= 31 * DAY
