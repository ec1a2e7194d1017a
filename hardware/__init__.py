"""Devices behind interfaces: shuffler, LED peg board and input panel, with drivers and simulators."""
