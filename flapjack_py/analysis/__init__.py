"""Looking back: replaying archived events with proposed rules (backtest)."""
