"""The town and everything the player sees."""
