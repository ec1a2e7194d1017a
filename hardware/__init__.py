"""Devices behind interfaces: shuffler, LED peg board, input panel; drivers and simulators."""
