"""Errors meant for people: the message says what, where, and what to do."""


class UserError(Exception):
    """A problem the user can fix (bad file, bad flag). Printed without a traceback."""


class MapError(Exception):
    """A map that cannot be used; ``str()`` names the file and the offending thing."""
