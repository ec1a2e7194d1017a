"""The peg board's body as build123d solids: a top with the template's holes and a base with a
channel under each row of the strip (the `cad` extra; never on the Pi)."""
