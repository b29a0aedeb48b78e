"""Typed building blocks of the config models: strict scalars, ranged numbers, durations, and errors.

A pydantic ValidationError becomes one ConfigError naming the dotted key and
the problem (`gateways.email.smtp_config.port: Input should be a valid integer`);
values of secret-looking keys are never echoed.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from pydantic import ValidationError as PydanticValidationError
from pydantic_core import PydanticCustomError

from flapjack_py.config.redaction import SECRET_SETTING, mask_url
from flapjack_py.durations import MAX_DURATION, parse_duration
from flapjack_py.errors import ConfigError, InvalidDuration

MAX_TIMEOUT = 3600.0
"""Longest network timeout or wait a setting takes, in seconds."""

M = TypeVar("M", bound=BaseModel)


class Section(BaseModel):
    """A config section: immutable, unknown keys refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def _duration(value: Any) -> Any:
    """Seconds from a number or a human duration ("4 hours"); other types left to the int check."""
    if isinstance(value, (bool, type(None))):
        return value
    if isinstance(value, (int, float, str)):
        try:
            return parse_duration(value)
        except InvalidDuration as exc:
            raise PydanticCustomError("duration", "{reason}", {"reason": str(exc)}) from None
    return value


def _number(value: Any) -> Any:
    """Numbers only: YAML strings and booleans are not silently turned into seconds."""
    if isinstance(value, (bool, str)):
        raise PydanticCustomError("float_type", "Input should be a number")
    return value


def _string_list(value: Any) -> Any:
    """A single string stands for a one-element list; null for none."""
    if value is None:
        return ()
    return [value] if isinstance(value, str) else value


Str = StrictStr
Text = Annotated[StrictStr, Field(min_length=1, max_length=4096)]
"""A non-empty string."""
Bool = StrictBool
Port = Annotated[StrictInt, Field(ge=1, le=65535)]
Seconds = Annotated[StrictInt, BeforeValidator(_duration), Field(ge=0, le=MAX_DURATION)]
"""A duration in whole seconds, written as a number or in words; 0 .. 1000 years."""
Timeout = Annotated[float, BeforeValidator(_number), Field(gt=0, le=MAX_TIMEOUT)]
"""Seconds (may be fractional) of a network timeout: > 0 .. 1 hour."""
Wait = Annotated[float, BeforeValidator(_number), Field(ge=0, le=MAX_TIMEOUT)]
"""Seconds (may be fractional) of a wait or poll interval: 0 .. 1 hour."""
Texts = Annotated[tuple[Text, ...], BeforeValidator(lambda v: () if v is None else v)]
"""A list of non-empty strings (null = none)."""
TextOrTexts = Annotated[tuple[Text, ...], BeforeValidator(_string_list)]
"""One non-empty string or a list of them."""


def validated(model: type[M], data: Any, at: tuple[str, ...] = ()) -> M:
    """`model` validated from `data`; ConfigError naming the first bad key (below the dotted key `at`, where
    `data` sits in the config) and its problem."""
    try:
        return model.model_validate(data)
    except PydanticValidationError as exc:
        error = exc.errors()[0]
        raise ConfigError(describe_error({**error, "loc": (*at, *error["loc"])})) from None


def describe_error(error: Any) -> str:
    """`dotted.key: problem (got VALUE)` for one pydantic error; secret values are not shown."""
    loc = [str(part) for part in error["loc"]]
    ctx = error.get("ctx") or {}
    if error["type"] == "required_setting":
        loc.append(ctx["key"])
    dotted = ".".join(loc) or "config"
    if error["type"] == "extra_forbidden":
        return f"{dotted}: unknown {'section' if len(loc) == 1 else 'setting'}"
    message = f"{dotted}: {error['msg'].removeprefix('Value error, ')}"
    if error["type"] not in ("missing", "required_setting", "duration") and not SECRET_SETTING.search(dotted):
        shown = mask_url(repr(error.get("input")))
        message += f" (got {shown[:60]}{'...' if len(shown) > 60 else ''})"
    return message
