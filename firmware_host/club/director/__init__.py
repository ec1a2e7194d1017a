"""The club's director: `crib club serve` takes the tables' results from the broker, keeps
the night in its own SQLite, seats the rounds and shows the standings."""
