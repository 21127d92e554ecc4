"""Errors meant for people, raised in more than one part of the minds: the message
says what, where, and what to do."""
from __future__ import annotations


class ConfigError(ValueError):
    """A configuration value that cannot be used; the message names its source,
    one line per problem."""
