"""Amazon SNS gateway: publish the alert to the topic ARN in its address (engine.md 6.5).

Settings `gateways.sns`: `access_key`, `secret_key`, `region_name` [us-east-1],
`endpoint_url` [AWS] (e.g. a local moto or LocalStack server).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import boto3
import botocore.exceptions
import requests

from flapjack_py.config.gateways import GatewaySettings
from flapjack_py.config.types import Text
from flapjack_py.model.alert import Alert
from flapjack_py.notify import render

from .base import Declaration, Gateway, PermanentError, TransientError

log = logging.getLogger(__name__)

REGION = "us-east-1"
THROTTLING = {"Throttling", "ThrottlingException", "ThrottledException", "InternalError",
              "InternalFailure", "ServiceUnavailable", "KMSThrottlingException"}


class SnsSettings(GatewaySettings):
    """`gateways.sns`."""

    required = ("access_key", "secret_key")
    access_key: Text | None = None
    secret_key: Text | None = None
    region_name: Text = REGION
    endpoint_url: Text | None = None


class SnsGateway(Gateway):
    """Publish(TopicArn=address, Subject=subject cut to 100, Message=body) through boto3."""

    medium = "sns"
    server = "SNS"
    required = ("access_key", "secret_key")

    def __init__(self, settings: Mapping[str, Any], session: requests.Session | None = None) -> None:
        super().__init__(settings, session)
        self.client = boto3.client(
            "sns", region_name=str(settings.get("region_name") or REGION),
            aws_access_key_id=str(settings["access_key"]), aws_secret_access_key=str(settings["secret_key"]),
            endpoint_url=settings.get("endpoint_url") or None)

    def send(self, alert: Alert) -> None:
        subject = render.truncate(str(alert.get("subject") or ""), render.SNS_SUBJECT_MAX)
        try:
            self.client.publish(TopicArn=alert["address"], Subject=subject or "Flapjack",
                                Message=str(alert.get("body") or ""))
        except botocore.exceptions.ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
            reason = f"SNS {code}: {exc.response.get('Error', {}).get('Message', '')}"
            raise (TransientError(reason) if code in THROTTLING or status >= 500 else PermanentError(reason)) from None
        except botocore.exceptions.BotoCoreError as exc:
            raise TransientError(f"SNS {type(exc).__name__}: {exc}") from None

    def close(self) -> None:
        self.client.close()
        super().close()


GATEWAY = Declaration.of(SnsGateway, SnsSettings)
"""The sns medium (registered in pyproject.toml's `flapjack_py.gateways` entry points)."""
