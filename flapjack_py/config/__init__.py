"""Configuration: the YAML file read, validated by typed models (settings.py), returned frozen."""
