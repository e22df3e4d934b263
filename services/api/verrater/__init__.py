"""Generated from proto/ by `python -m services.api.generate`; do not edit."""
