"""Errors meant for people: the message says what, where, and what to do."""


class UserError(Exception):
    """A problem the user can fix (bad file, bad flag). Printed without a traceback."""


class MapError(Exception):
    """A map that cannot be used; ``str()`` names the file and the offending thing."""


class SaveError(UserError):
    """A save could not be written or read. str() names the file, says what is
    wrong and what to do; the game that asked is left untouched."""
