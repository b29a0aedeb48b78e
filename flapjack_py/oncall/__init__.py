"""On-call schedules, recurring maintenance (RRULE) and their iCalendar forms (pure), and the guarded
fetch of a schedule layer's calendar URL (ical_fetch.py)."""
