"""Receivers and tools of the `flapjack` command (engine.md 8); cli.py registers COMMANDS."""

from __future__ import annotations

import click

from flapjack_py.intake.receiver import receiver as receiver_group
from flapjack_py.intake.sensu import sensu_command
from flapjack_py.tools.audit import audit as audit_command
from flapjack_py.tools.backtest import backtest_command
from flapjack_py.tools.explain import explain as explain_command
from flapjack_py.tools.flapper import flapper as flapper_group
from flapjack_py.tools.importer import import_group
from flapjack_py.tools.maintenance import maintenance as maintenance_group
from flapjack_py.tools.purge import purge as purge_group
from flapjack_py.tools.report import report as report_command
from flapjack_py.tools.simulate import simulate as simulate_group
from flapjack_py.tools.users import token as token_group
from flapjack_py.tools.users import user as user_group

receiver_group.add_command(sensu_command)

# Imported under other names so that `flapjack_py.tools.<module>` stays the module.
COMMANDS: list[click.Command] = [simulate_group, maintenance_group, purge_group, receiver_group, import_group,
                                 flapper_group, user_group, token_group, explain_command,
                                 backtest_command, audit_command, report_command]
