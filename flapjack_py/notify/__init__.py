"""Notifications -> alerts: contacts, intervals, rollup, escalation, the decision trace, rendering with
the alert templates (flapjack_py/templates/<medium>/), and the alerts put on the per-medium rq queues
(enqueue.py; delivering them is gateways/)."""
