"""What the UI and reports show, computed from stored facts. Pure."""
