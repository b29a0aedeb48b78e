"""Every way events come in: the receivers (Nagios, NSCA, JSON, HTTP broker, Sensu, Alertmanager,
FIFOs, mirror) and the buffer in front of the queue. Events are validated by model/events.py."""
