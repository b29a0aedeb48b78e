"""SMS (MessageNet, Twilio, Nexmo), Slack, SNS and Apprise gateways against local servers."""

from __future__ import annotations

import base64
import json

import boto3
import pytest
from moto.server import ThreadedMotoServer

from .conftest import free_port, gateway_config, status_of

LONG = "x" * 300


def only_request(httpserver):
    [(request, _)] = httpserver.log
    return request


def test_messagenet_fields_and_truncation(redis_server, httpserver, enqueue, burst, real_r, real_s):
    httpserver.expect_request("/lodge", method="GET").respond_with_data("ok")
    config = gateway_config(redis_server.url, "sms", endpoint=httpserver.url_for("/lodge"),
                            username="fjuser", password="pw-sms-1")
    alert = enqueue(config, media="sms", address="+61400000000", summary=LONG)
    burst("sms", config)
    args = only_request(httpserver).args
    assert (args["Username"], args["Pwd"], args["PhoneNumber"]) == ("fjuser", "pw-sms-1", "+61400000000")
    assert len(args["PhoneMessage"]) == 159 and args["PhoneMessage"].endswith("...")
    assert args["PhoneMessage"].startswith("Problem: 'ping' on foo is Critical at ")
    assert status_of(real_s, alert["id"])["status"] == "delivered"


def test_twilio_fields_auth_and_truncation(redis_server, httpserver, enqueue, burst, real_r, real_s):
    httpserver.expect_request("/Accounts/AC1/Messages.json", method="POST").respond_with_json({"sid": "SM1"},
                                                                                              status=201)
    config = gateway_config(redis_server.url, "sms_twilio", account_sid="AC1", auth_token="tw-token-1",
                            endpoint=httpserver.url_for("/Accounts/AC1/Messages.json"), **{"from": "+15550000"})
    alert = enqueue(config, media="sms_twilio", address="+15551111", summary=LONG)
    burst("sms_twilio", config)
    request = only_request(httpserver)
    assert request.headers["Authorization"] == "Basic " + base64.b64encode(b"AC1:tw-token-1").decode()
    assert (request.form["To"], request.form["From"]) == ("+15551111", "+15550000")
    assert len(request.form["Body"]) == 159
    assert status_of(real_s, alert["id"])["status"] == "delivered"


def test_twilio_unauthorised_fails_without_leaking_token(redis_server, httpserver, enqueue, burst, real_r, real_s):
    httpserver.expect_request("/m").respond_with_data("bad credentials tw-token-1", status=401)
    config = gateway_config(redis_server.url, "sms_twilio", account_sid="AC1", auth_token="tw-token-1",
                            endpoint=httpserver.url_for("/m"), **{"from": "+1"})
    alert = enqueue(config, media="sms_twilio", address="+2")
    burst("sms_twilio", config)
    record = status_of(real_s, alert["id"])
    assert record["status"] == "failed" and "HTTP 401" in record["error"] and "tw-token-1" not in record["error"]


def test_nexmo_fields_and_status(redis_server, httpserver, enqueue, burst, real_r, real_s):
    httpserver.expect_request("/sms/json", method="POST").respond_with_json(
        {"message-count": "1", "messages": [{"status": "0"}]})
    config = gateway_config(redis_server.url, "sms_nexmo", api_key="nk", secret="nexmo-secret",
                            endpoint=httpserver.url_for("/sms/json"), **{"from": "Flapjack"})
    alert = enqueue(config, media="sms_nexmo", address="447700900000", summary=LONG)
    burst("sms_nexmo", config)
    form = only_request(httpserver).form
    assert (form["api_key"], form["api_secret"], form["from"], form["to"]) == (
        "nk", "nexmo-secret", "Flapjack", "447700900000")
    assert len(form["text"]) == 159
    assert status_of(real_s, alert["id"])["status"] == "delivered"


def test_nexmo_rejection_fails(redis_server, httpserver, enqueue, burst, real_r, real_s):
    httpserver.expect_request("/sms/json").respond_with_json(
        {"messages": [{"status": "6", "error-text": "Unroutable message"}]})
    config = gateway_config(redis_server.url, "sms_nexmo", api_key="nk", secret="nexmo-secret",
                            endpoint=httpserver.url_for("/sms/json"), **{"from": "F"})
    alert = enqueue(config, media="sms_nexmo", address="1")
    burst("sms_nexmo", config)
    record = status_of(real_s, alert["id"])
    assert record["status"] == "failed" and "Unroutable" in record["error"]


@pytest.mark.parametrize("address, channel", [("ops", "#ops"), ("#", "#general")])
def test_slack_payload_without_truncation(address, channel, redis_server, httpserver, enqueue, burst, real_r, real_s):
    httpserver.expect_request("/hook", method="POST").respond_with_data("ok")
    config = gateway_config(redis_server.url, "slack", endpoint=httpserver.url_for("/hook"), account_sid="fjbot")
    alert = enqueue(config, media="slack", address=address, summary=LONG)
    burst("slack", config)
    payload = json.loads(only_request(httpserver).form["payload"])
    assert payload == {"channel": channel, "username": "fjbot", "icon_emoji": ":ghost:", "text": alert["body"]}
    assert len(payload["text"]) > 300
    assert status_of(real_s, alert["id"])["status"] == "delivered"


@pytest.fixture(scope="module")
def moto_url():
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
    server.start()
    yield f"http://127.0.0.1:{server._port}"
    server.stop()


def test_sns_publishes_subject_and_text(moto_url, redis_server, enqueue, burst, real_r, real_s):
    aws = {"region_name": "us-east-1", "aws_access_key_id": "AKIDTEST", "aws_secret_access_key": "sns-secret-1",
           "endpoint_url": moto_url}
    sns, sqs = boto3.client("sns", **aws), boto3.client("sqs", **aws)
    topic = sns.create_topic(Name="alerts")["TopicArn"]
    queue_url = sqs.create_queue(QueueName="alerts-copy")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)
    config = gateway_config(redis_server.url, "sns", access_key="AKIDTEST", secret_key="sns-secret-1",
                            endpoint_url=moto_url)
    check = "a-very-long-check-name-" * 5
    alert = enqueue(config, media="sns", address=topic, check=f"foo:{check}", event_id=f"foo:{check}")
    burst("sns", config)
    [message] = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
    note = json.loads(message["Body"])
    assert len(note["Subject"]) == 100 and note["Subject"].endswith("...")
    assert note["Subject"].startswith(f"Problem: '{check}"[:50])
    assert note["Message"] == alert["body"]
    assert status_of(real_s, alert["id"])["status"] == "delivered"


def test_apprise_json_url(redis_server, httpserver, enqueue, burst, real_r, real_s):
    httpserver.expect_request("/notify", method="POST").respond_with_data("ok")
    config = gateway_config(redis_server.url, "apprise")
    url = httpserver.url_for("/notify").replace("http://", "json://")
    alert = enqueue(config, media="apprise", address=url)
    burst("apprise", config)
    body = json.loads(only_request(httpserver).get_data())
    assert body["title"] == "Problem: 'ping' on foo is Critical"
    assert body["message"] == alert["body"]
    assert status_of(real_s, alert["id"])["status"] == "delivered"


def test_http_media_go_through_the_proxy_the_environment_names(monkeypatch, redis_server, httpserver, enqueue,
                                                               burst, real_s):
    """Gateways skip requests' per-request look at the environment only when it names nothing: a proxy set in
    HTTP_PROXY carries the alert (the bench and most installs set none)."""
    httpserver.expect_request("/v2/enqueue", method="POST").respond_with_json({"status": "success"}, status=202)
    monkeypatch.setenv("HTTP_PROXY", httpserver.url_for("/").rstrip("/"))
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    config = gateway_config(redis_server.url, "pagerduty", events_url="http://events.pagerduty.invalid",
                            ack_poll_interval=0)
    alert = enqueue(config, media="pagerduty", address="routing-key-1")
    burst("pagerduty", config)
    assert only_request(httpserver).host == "events.pagerduty.invalid"  # the proxy was asked for the real host
    assert status_of(real_s, alert["id"])["status"] == "delivered"


@pytest.mark.parametrize("variable", ["REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"])
def test_https_media_trust_the_ca_bundle_the_environment_names(variable, monkeypatch, tmp_path, redis_server,
                                                               enqueue, burst, real_s):
    """Without the environment's proxies the session reads the CA bundle variable once: a server whose
    self-signed certificate is that bundle is trusted, as requests itself would."""
    import ssl
    import subprocess

    from pytest_httpserver import HTTPServer

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
                 "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, str(cert))
    server = HTTPServer(host="127.0.0.1", port=free_port(), ssl_context=context)
    server.expect_request("/v2/enqueue", method="POST").respond_with_json({"status": "success"}, status=202)
    server.start()
    try:
        config = gateway_config(redis_server.url, "pagerduty", events_url=f"https://127.0.0.1:{server.port}",
                                ack_poll_interval=0)
        alert = enqueue(config, media="pagerduty", address="routing-key-1")
        burst("pagerduty", config)
    finally:
        server.stop()
    assert len(server.log) == 1
    assert status_of(real_s, alert["id"])["status"] == "delivered"
