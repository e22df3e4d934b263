"""Helpers shared by test packages: real Redis servers and async waiting utilities."""
