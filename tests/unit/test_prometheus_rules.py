"""deploy/prometheus-rules.yml only names metrics the collector exposes."""

from __future__ import annotations

import re
from pathlib import Path

import fakeredis
import yaml
from prometheus_client.parser import text_string_to_metric_families

from flapjack_py.config.settings import load_config
from flapjack_py.runtime import metrics
from flapjack_py.runtime.connection import clients_for

RULES = Path(__file__).resolve().parents[2] / "deploy" / "prometheus-rules.yml"


def test_rules_name_only_exposed_metrics():
    text = metrics.render(clients_for(fakeredis.FakeRedis()), load_config({"gateways": {"email": {"enabled": True}}})).decode()
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}
    exposed = {f.name + suffix for f in text_string_to_metric_families(text) for suffix in suffixes[f.type]}
    rules = [rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]]
    assert rules
    for rule in rules:
        for name in re.findall(r"\bflapjack_\w+", rule["expr"]):
            assert name in exposed, f"{rule['alert']} uses {name}, which /metrics does not expose"
