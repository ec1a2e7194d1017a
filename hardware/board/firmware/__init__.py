"""The board's MicroPython firmware: `core` (plain, also runs under CPython), `config`, `main`."""
