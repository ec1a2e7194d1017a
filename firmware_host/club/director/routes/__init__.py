"""The director's API, one router per area."""
