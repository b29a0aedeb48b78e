"""Receivers and tools of the `flapjack` command (engine.md 8); cli.py registers COMMANDS."""

from __future__ import annotations

import click

from .backtest import backtest_command
from .explain import explain as explain_command
from .flapper import flapper as flapper_group
from .importer import import_group
from .maintenance import maintenance as maintenance_group
from .purge import purge as purge_group
from .receiver import receiver as receiver_group
from .sensu import sensu_command
from .simulate import simulate as simulate_group
from .users import token as token_group
from .users import user as user_group

receiver_group.add_command(sensu_command)

# Imported under other names so that `flapjack_py.tools.<module>` stays the module.
COMMANDS: list[click.Command] = [simulate_group, maintenance_group, purge_group, receiver_group, import_group,
                                 flapper_group, user_group, token_group, explain_command,
                                 backtest_command]
