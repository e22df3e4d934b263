"""Event store tests: one contract suite for every implementation, plus Redis specifics."""
